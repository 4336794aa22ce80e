/**
 * The breaking-change gate, `npm run contract:diff` (scripts/contract-diff.mjs on Redocly's
 * experimental `diff`), run for real on edited copies of this spec: which changes break clients
 * (request side: what a client may send; response side: what it must be able to read), which do
 * not, and that a major bump of info.version lets a breaking change through. The base is the
 * bundle `npm run build` wrote (dist/openapi.yaml), as released/openapi.yaml is at a release.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { editedSpecCopy } from '../../scripts/lib/edited-spec-copy.mjs';

const exec = promisify(execFile);
const openapi = fileURLToPath(new URL('..', import.meta.url));
const repository = join(openapi, '..');
const base = join(openapi, 'dist', 'openapi.yaml');
const copies: string[] = [];

// The versions around the base's info.version (whatever the last release was).
const released = (parse(readFileSync(base, 'utf8')) as { info: { version: string } }).info.version;
const [major = 0, minor = 0] = released.split('.').map(Number);
const nextMajor = `${major + 1}.0.0`;
const nextMinor = `${major}.${minor + 1}.0`;
const lower = `${major - 1}.9.0`;

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML; each edit knows the shape of its file
type Yaml = Record<string, any>;
/** Edits of the copy: file under openapi/ → a mutation of its parsed YAML. */
type Edits = Record<string, (document: Yaml) => void>;

/** An edited copy of the spec's sources (`texts`: other files' content); returns its root file. */
function editedCopy(edits: Edits, texts: Record<string, string>): string {
  const { directory, root } = editedSpecCopy(edits, texts);
  copies.push(directory);
  return root;
}

/**
 * `npm run contract:diff` against the bundle, on an edited copy (`texts`: other files' content).
 * With `viaNpm` false, the script the npm script runs, without npm's own start (half a second of
 * CPU per case); the first case goes through npm, so the npm script itself is run too.
 */
async function contractDiff(edits: Edits, texts: Record<string, string> = {}, viaNpm = false) {
  const revision = editedCopy(edits, texts);
  const args = ['--base', base, '--revision', revision];
  try {
    const { stdout, stderr } = viaNpm
      ? await exec('npm', ['run', 'contract:diff', '--silent', '--', ...args], { cwd: repository })
      : await exec(process.execPath, [join(repository, 'scripts', 'contract-diff.mjs'), ...args], {
          cwd: repository,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
        });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, output: stdout + stderr };
  }
}

const USER_INPUT = 'components/schemas/UserInput.yaml';
const USER_CREATED = 'components/schemas/UserCreated.yaml';
const CREATE = 'paths/api_v1_external_users.yaml';
const nickname = { description: 'A nickname.', type: 'string' };
const newRequiredField = (schema: Yaml) => {
  schema.properties = { nickname, ...schema.properties };
  schema.required.push('nickname');
};

afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

describe('npm run contract:diff', { timeout: 60_000 }, () => {
  it('passes on an unchanged copy, with nothing to report', async () => {
    const { code, output } = await contractDiff({}, {}, true);
    expect(output).toMatch(/redocly diff 2\.77\.0/);
    expect(output).toMatch(/0 breaking, 0 compatible, 0 editorial changes\./);
    expect(output).toContain(`✔ no breaking change since the release of ${released}.`);
    expect(code).toBe(0);
  });

  it('rates a changed code sample (a file under code-samples/) as editorial', async () => {
    const { code, output } = await contractDiff(
      {},
      { 'code-samples/python/create_user.py': 'print("another sample")\n' },
    );
    expect(output).toMatch(/0 breaking, 0 compatible, 1 editorial change /);
    expect(code).toBe(0);
  });

  it('fails on a new required request field, naming it and where it is', async () => {
    const { code, output } = await contractDiff({ [USER_INPUT]: newRequiredField });
    expect(output).toMatch(/POST \/api\/v1\/external\/users/);
    expect(output).toMatch(
      /✖ BREAKING .*requestBody\/content\/application\/json\/schema · required/,
    );
    expect(output).toMatch(
      /Properties became required: `nickname`\. \[required-properties-added\]/,
    );
    expect(output).toMatch(/at .*components\/schemas\/UserInput\.yaml:\d+:\d+/);
    expect(output).toContain(
      `✖ 1 breaking change since the release of ${released}, but info.version is ${released}.`,
    );
    expect(output).toContain(`set info.version to ${nextMajor}`);
    expect(code).toBe(1);
  });

  it('passes on a new optional request field, listing it as compatible', async () => {
    const { code, output } = await contractDiff({
      [USER_INPUT]: (schema) => {
        schema.properties = { nickname, ...schema.properties };
      },
    });
    expect(output).toMatch(
      /✔ compatible\s+added requestBody\/content\/application\/json\/schema\/properties\/nickname/,
    );
    expect(output).toMatch(/0 breaking, 1 compatible/);
    expect(code).toBe(0);
  });

  it('fails on a response field removed, naming it', async () => {
    const { code, output } = await contractDiff({
      [USER_CREATED]: (schema) => {
        delete schema.properties.documents;
        schema.required = schema.required.filter((name: string) => name !== 'documents');
      },
    });
    expect(output).toMatch(/Property `documents` was removed\. \[property-removed\]/);
    expect(output).toMatch(
      /responses\/200\/content\/application\/json\/schema\/properties\/documents/,
    );
    expect(code).toBe(1);
  });

  it('lets a breaking change through when info.version carries a major bump', async () => {
    const { code, output } = await contractDiff({
      [USER_INPUT]: newRequiredField,
      'openapi.yaml': (root) => {
        root.info.version = nextMajor;
      },
    });
    expect(output).toMatch(/Properties became required: `nickname`/);
    expect(output).toContain(
      `✔ 1 breaking change, accepted: info.version ${nextMajor} is a major bump over the released ${released}.`,
    );
    expect(code).toBe(0);
  });

  it('refuses a minor bump as the answer to a breaking change', async () => {
    const { code } = await contractDiff({
      [USER_INPUT]: newRequiredField,
      'openapi.yaml': (root) => {
        root.info.version = nextMinor;
      },
    });
    expect(code).toBe(1);
  });

  it('fails when info.version moves but the contract does not: it moves for contract changes only', async () => {
    const { code, output } = await contractDiff({
      'openapi.yaml': (root) => {
        root.info.version = nextMinor;
      },
    });
    expect(output).toContain(
      `info.version is ${nextMinor}, but the contract is the released ${released}'s: the contract's version moves for contract changes only`,
    );
    expect(output).toMatch(/@institution-api\/runtime/);
    expect(code).toBe(1);
  });

  it('lets info.version move for a change of words only, which the diff leaves out', async () => {
    const { code } = await contractDiff(
      {
        'openapi.yaml': (root) => {
          root.info.version = `${major}.${minor}.${Number(released.split('.')[2] ?? 0) + 1}`;
        },
      },
      {
        'info-description.md': `${readFileSync(join(openapi, 'info-description.md'), 'utf8')}\nOne more sentence.\n`,
      },
    );
    expect(code).toBe(0);
  });

  it('fails when info.version goes down', async () => {
    const { code, output } = await contractDiff({
      'openapi.yaml': (root) => {
        root.info.version = lower;
      },
    });
    expect(output).toContain(`info.version ${lower} is lower than the released ${released}`);
    expect(code).toBe(1);
  });

  // How Redocly rates the other kinds of change. Request side: what clients may send must stay
  // accepted. Response side: what clients read must keep its shape and its values.
  it.each<[string, Edits, 0 | 1, RegExp]>([
    [
      'a removed enum value (sent and read)',
      {
        'components/schemas/MobileNetwork.yaml': (schema) => {
          schema.enum = schema.enum.filter((value: string) => value !== 'TELECEL');
        },
      },
      1,
      /Enum lost values: 'TELECEL'\./,
    ],
    [
      'a narrower maxLength of a request field',
      {
        'components/schemas/PersonName.yaml': (schema) => {
          schema.maxLength = 50;
        },
      },
      1,
      /`maxLength` changed from '100' to '50'\./,
    ],
    [
      'a narrower pattern of a request field',
      {
        'components/schemas/GhanaMobileNumber.yaml': (schema) => {
          schema.pattern = schema.pattern.replace('(?:0|\\+?233)', '(?:0)');
        },
      },
      1,
      /`pattern` changed from/,
    ],
    [
      'a request field removed (the strict server then rejects it)',
      {
        [USER_INPUT]: (schema) => {
          delete schema.properties.gender;
        },
      },
      1,
      /Property `gender` was removed\./,
    ],
    [
      'a response field made optional',
      {
        [USER_CREATED]: (schema) => {
          schema.required = schema.required.filter((name: string) => name !== 'documents');
        },
      },
      1,
      /Properties are no longer required: `documents`\./,
    ],
    [
      'a response field made nullable',
      {
        [USER_CREATED]: (schema) => {
          schema.properties.email.type = ['string', 'null'];
        },
      },
      1,
      /Type of `email` widened from 'string' to 'string \| null'\./,
    ],
    [
      'a request field made nullable',
      {
        [USER_INPUT]: (schema) => {
          schema.properties.email.type = ['string', 'null'];
        },
      },
      0,
      /0 breaking, 0 compatible, 1 editorial change/,
    ],
    [
      'a new response status',
      {
        [CREATE]: (path) => {
          path.post.responses['422'] = { $ref: '../components/responses/BadRequest.yaml' };
        },
      },
      0,
      /✔ compatible\s+added responses\/422/,
    ],
    [
      'a response status removed',
      {
        [CREATE]: (path) => {
          delete path.post.responses['409'];
        },
      },
      1,
      /Response `409` was removed\./,
    ],
    [
      'a new required response field',
      {
        [USER_CREATED]: (schema) => {
          schema.properties.updatedAt = { description: 'Last update.', type: 'string' };
          schema.required.push('updatedAt');
        },
      },
      0,
      /✔ compatible\s+added responses\/200\/content\/application\/json\/schema\/properties\/updatedAt/,
    ],
    [
      'a server described anew (Redocly: removed, and another added)',
      {
        'openapi.yaml': (root) => {
          const server = root.servers.at(-1);
          server.description = 'The host that serves this document.';
          server['x-internal'] = true;
        },
      },
      0,
      /0 breaking, 0 compatible, 1 editorial change/,
    ],
    [
      'a server moved to the front and described anew',
      {
        'openapi.yaml': (root) => {
          const server = root.servers.pop();
          server.description = 'The host that serves this document.';
          root.servers.unshift(server);
        },
      },
      0,
      /✔ compatible\s+moved 0 \(from 2\)\n[\s\S]*0 breaking, 1 compatible/,
    ],
    [
      'a server removed from the list',
      {
        'openapi.yaml': (root) => {
          root.servers = root.servers.filter((server: { url: string }) => server.url !== '/');
        },
      },
      1,
      /Server `\/` was removed\. \[server-removed\]/,
    ],
  ])('rates %s', async (_name, edits, expectedCode, message) => {
    const { code, output } = await contractDiff(edits);
    expect(output).toMatch(message);
    expect(code).toBe(expectedCode);
  });
});
