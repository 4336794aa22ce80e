/**
 * The docs for agents (scripts/lib/agent-pages.mjs): what the build writes beside the page
 * (`llms.txt` in the llmstxt.org layout and the Markdown pages it links), what each page says,
 * read from the spec (every field of the body, every documented answer and error, both answer
 * shapes), the signing guide's worked example verified by the signing package, and a field added
 * to the spec on the pages with no change of the generator. That the reference server serves them
 * is e2e's `docs/agent-pages.system.test.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { requestExamples, toJsonSchema } from '@institution-api/runtime/spec';
import { verifyMessageSignatureSync, verifySync } from '@institution-api/signing/node';
import type { OpenApiDocument } from '@institution-api/types';
import { describe, expect, it } from 'vitest';
import {
  agentPages,
  agentPagesDirectory,
  workedExampleInputs,
} from '../scripts/lib/agent-pages.mjs';

// biome-ignore lint/suspicious/noExplicitAny: the spec's objects, read by their known keys
type Json = Record<string, any>;

const require = createRequire(import.meta.url);
const document = JSON.parse(
  readFileSync(require.resolve('@institution-api/openapi/openapi.json'), 'utf8'),
) as OpenApiDocument;
const dist = new URL('../dist/', import.meta.url);
const pages = agentPages(document);
const page = (path: string) => pages.get(path) ?? '';

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([, operation]) => (operation as Json)?.operationId)
    .map(([method, operation]) => ({ path, method, operation: operation as Json })),
);

/** The links of `llms.txt`'s lists: `- [name](url): note`. */
const links = [...page('llms.txt').matchAll(/^- \[([^\]]+)\]\(([^)]+)\)(?:: (.+))?$/gm)].map(
  ([, name, url, note]) => ({ name, url: url ?? '', note }),
);

describe('the build', () => {
  it('writes llms.txt and each page it links, as the spec makes them today', () => {
    for (const [path, text] of pages) {
      expect(readFileSync(new URL(path, dist), 'utf8'), path).toBe(text);
    }
    expect(readdirSync(new URL(`${agentPagesDirectory}/`, dist)).sort()).toEqual(
      [...pages.keys()]
        .filter((path) => path.startsWith(`${agentPagesDirectory}/`))
        .map((path) => path.slice(agentPagesDirectory.length + 1))
        .sort(),
    );
  });
});

describe('llms.txt', () => {
  const lines = page('llms.txt').split('\n');

  it('has the llmstxt.org layout: an H1 title, a blockquote summary, sections of links', () => {
    expect(lines[0]).toBe(`# ${document.info.title}`);
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe(`> ${document.info.summary}`);
    const headings = lines.filter((line) => line.startsWith('#'));
    expect(headings.slice(1).every((line) => /^## \S/.test(line))).toBe(true);
    expect(headings).toContain('## Operations');
    // Under each section, only list items of links with a note.
    for (const line of lines.slice(lines.indexOf('## Operations'))) {
      if (line === '' || line.startsWith('## ')) continue;
      expect(line).toMatch(/^- \[[^\]]+\]\([^)]+\): \S/);
    }
  });

  it('links a page per operation, the signing guide, and the spec', () => {
    for (const { operation } of operations) {
      expect(links.map(({ url }) => url)).toContain(
        `${agentPagesDirectory}/${operation.operationId}.md`,
      );
    }
    expect(links.map(({ url }) => url)).toEqual(
      expect.arrayContaining([`${agentPagesDirectory}/signing.md`, 'openapi.yaml']),
    );
  });
});

describe('the page of each operation', () => {
  const userInput = toJsonSchema(document, { $ref: '#/components/schemas/UserInput' });
  const fields = Object.entries(userInput.properties as Record<string, Json>).flatMap(
    ([name, schema]) => [
      name,
      ...Object.keys(schema.properties ?? {}).map((nested) => `${name}.${nested}`),
    ],
  );

  it.each(operations)(
    '$operation.operationId: method, path, every field of the body',
    ({ path, method, operation }) => {
      const text = page(`${agentPagesDirectory}/${operation.operationId}.md`);
      expect(text).toContain(`\`${method.toUpperCase()} ${path}\``);
      for (const field of fields) expect(text, field).toContain(`| \`${field}\` |`);
      for (const required of userInput.required as string[]) {
        expect(text).toMatch(new RegExp(`\\| \`${required}\` \\| [^|]+ \\| yes \\|`));
      }
    },
  );

  it.each(operations)(
    '$operation.operationId: every documented answer and error',
    ({ operation }) => {
      const text = page(`${agentPagesDirectory}/${operation.operationId}.md`);
      for (const status of Object.keys(operation.responses)) {
        expect(text, status).toMatch(new RegExp(`^### ${status}$`, 'm'));
      }
    },
  );

  it('shows both answer shapes: create snake_case, update camelCase', () => {
    const create = page(`${agentPagesDirectory}/createUser.md`);
    const update = page(`${agentPagesDirectory}/updateUser.md`);
    expect(create).toContain("### The answer's shape: `UserCreated`");
    expect(create).toContain('| `account.account_type` |');
    expect(create).toContain('| `userImage` |');
    expect(create).toContain('| `documents` |');
    expect(update).toContain("### The answer's shape: `UserUpdated`");
    expect(update).toContain('| `account.accountType` |');
    expect(update).toContain('| `monthlyIncome` |');
    // Each says how the other differs.
    expect(create).toMatch(/only `UserUpdated` has: `image`, `monthlyIncome`/);
    expect(update).toMatch(/only `UserCreated` has: `userImage`, `documents`/);
  });
});

describe("the signing guide's worked example", () => {
  const text = page(`${agentPagesDirectory}/signing.md`);
  const request = /### The request\n[\s\S]*?```http\n([\s\S]*?)\n```/.exec(text)?.[1] ?? '';
  const [head = '', body = ''] = request.split('\n\n');
  const [requestLine = '', ...headerLines] = head.split('\n');
  const headers = new Map(
    headerLines.map((line) => {
      const colon = line.indexOf(': ');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 2)] as const;
    }),
  );

  it("carries the spec's own section on signing", () => {
    expect(text).toContain('`Authorization: <publicKey>:<signature>`');
    expect(text).toContain('RFC 9421');
  });

  it('is a whole request whose body is the first request example, as JSON.stringify writes it', () => {
    expect(requestLine).toBe('POST /api/v1/external/users HTTP/1.1');
    expect(Number(headers.get('content-length'))).toBe(Buffer.byteLength(body));
    const [first] = requestExamples(document, 'createUser');
    expect(body).toBe(JSON.stringify(first?.value));
  });

  it('verifies: the Authorization header and the RFC 9421 message signature', () => {
    const { publicKey, secretKey, created } = workedExampleInputs;
    const [keyId, signature] = String(headers.get('authorization')).split(':');
    expect(keyId).toBe(publicKey);
    expect(verifySync(body, signature ?? '', secretKey)).toBe(true);
    const verdict = verifyMessageSignatureSync(
      {
        method: 'POST',
        url: `http://${headers.get('host')}${requestLine.split(' ')[1]}`,
        header: (name) => headers.get(name),
        body: Buffer.from(body),
      },
      { keyId: publicKey, secretKey, now: created },
    );
    expect(verdict).toMatchObject({ status: 'valid', created });
    // One byte more and neither verifies.
    expect(verifySync(`${body} `, signature ?? '', secretKey)).toBe(false);
  });
});

describe('a field added to the spec', () => {
  it('is on the pages of both operations, in the body and in each answer, with no code change', () => {
    const changed = structuredClone(document);
    const schemas = changed.components.schemas as Record<string, Json>;
    for (const name of ['UserInput', 'UserCreated', 'UserUpdated']) {
      (schemas[name] as Json).properties.preferredName = {
        description: 'The name the customer likes to be called by, or null.',
        type: ['string', 'null'],
        maxLength: 100,
      };
    }
    const changedPages = agentPages(changed);
    for (const { operation } of operations) {
      const text = changedPages.get(`${agentPagesDirectory}/${operation.operationId}.md`) ?? '';
      expect(text.match(/\| `preferredName` \|/g)).toHaveLength(2);
      expect(text).toContain(
        '| `preferredName` | string or null | no | at most 100 characters | The name the customer',
      );
    }
  });
});
