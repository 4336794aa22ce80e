#!/usr/bin/env node
// @ts-check
/**
 * The API designer's loop, timed on a fresh clone (openapi/README.md, "The designer's loop"): `npm run lint` (Redocly on the spec and the workflows, Spectral's OWASP rules), a save
 * in `npm run docs:dev` until the page in a browser shows it, and `npm test` with turbo's cache
 * after a description-only change and after a new optional field.
 *
 * It clones this repository's committed HEAD into a temporary directory (uncommitted changes are
 * not in it), runs `npm ci` there (timed, not part of the loop), then each step in order, and
 * prints a Markdown table of wall times and results. Each step's output goes to
 * `<clone>/.designer-loop/<step>.log`; the clone is removed unless `--keep` is given. It asserts
 * nothing about speed: a failing step is reported in the table (and the exit code is 1).
 *
 *   node scripts/measure-designer-loop.mjs                 # the whole loop (npm test three times)
 *   node scripts/measure-designer-loop.mjs --scope openapi # lint and test of the spec's workspace only
 *   options: --keep, --saves <n> (docs:dev saves timed, default 3), --from <repository>
 *
 * Run it on a quiet machine: every figure is the wall time of one run.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    scope: { type: 'string' },
    keep: { type: 'boolean', default: false },
    saves: { type: 'string', default: '3' },
    from: { type: 'string', default: fileURLToPath(new URL('..', import.meta.url)) },
  },
});
/** @type {Record<string, string>} */
const scopes = { openapi: '@institution-api/openapi' };
if (values.scope !== undefined && !(values.scope in scopes)) {
  console.error(`--scope must be one of ${Object.keys(scopes).join(', ')}`);
  process.exit(2);
}
const saves = Number(values.saves);
if (!Number.isInteger(saves) || saves < 1) {
  console.error('--saves must be a whole number >= 1');
  process.exit(2);
}
const workspace = values.scope === undefined ? undefined : scopes[values.scope];
const env = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  TURBO_TELEMETRY_DISABLED: '1',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
};

const clone = await mkdtemp(join(tmpdir(), 'designer-loop-'));
const logs = join(clone, '.designer-loop');
/** @type {{ step: string; command: string; ms: number; result: string }[]} */
const rows = [];

/**
 * Runs a command in the clone to its end; resolves with its wall time, exit code and output.
 *
 * @param {string} command @param {string[]} args @param {string} log
 * @returns {Promise<{ ms: number; code: number; output: string }>}
 */
function run(command, args, log) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', async (code) => {
      const ms = performance.now() - started;
      await writeFile(join(logs, `${log}.log`), output);
      resolve({ ms, code: code ?? 1, output });
    });
  });
}

/**
 * One timed step of the table.
 *
 * @param {string} name @param {string} command @param {string[]} args @param {string} log
 */
async function step(name, command, args, log) {
  const { ms, code, output } = await run(command, args, log);
  const turbo = /Cached:\s+(\d+) cached, (\d+) total/.exec(output);
  const result = `${code === 0 ? 'ok' : `failed (exit ${code}, see ${log}.log)`}${
    turbo ? `; turbo: ${turbo[1]} of ${turbo[2]} tasks cached` : ''
  }`;
  rows.push({ step: name, command: [command, ...args].join(' '), ms, result });
  console.error(`${name}: ${seconds(ms)} ${result}`);
  return code;
}

/** @param {number} ms */
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** @type {[string, string[]]} */
const lint = workspace
  ? ['npx', ['turbo', 'run', 'lint', `--filter=${workspace}`]]
  : ['npm', ['run', 'lint']];
/** @type {[string, string[]]} */
const test = workspace
  ? ['npx', ['turbo', 'run', 'test', `--filter=${workspace}`]]
  : ['npm', ['test']];

/**
 * Appends `text` to the file at `path` (relative to the clone), after `after`.
 *
 * @param {string} path @param {string} after @param {string} text
 */
async function edit(path, after, text) {
  const file = join(clone, path);
  const content = await readFile(file, 'utf8');
  if (!content.includes(after))
    throw new Error(`${path} no longer contains ${JSON.stringify(after)}`);
  await writeFile(file, content.replace(after, `${after}${text}`));
}

/**
 * `npm run docs:dev` on a free port; times its first build, then each save of a sentence into the
 * spec's landing text until a browser showing the preview displays it (after the preview's
 * reload), or, without chromium, until the served page holds it.
 */
async function docsDev() {
  const started = performance.now();
  const child = spawn('npm', ['run', 'docs:dev', '--', '--port', '0'], {
    cwd: clone,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, stopped below by our PID only
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const stop = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  try {
    const url = await waitFor(() => /docs:dev serving (http:\/\/\S+)/.exec(output)?.[1], 180_000);
    rows.push({
      step: 'docs:dev, first build until it serves',
      command: 'npm run docs:dev',
      ms: performance.now() - started,
      result: 'ok',
    });
    const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
    const browser = existsSync(chromiumPath)
      ? await (await import('playwright-core')).chromium.launch({
          executablePath: chromiumPath,
          args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
        })
      : undefined;
    const page = browser ? await browser.newPage() : undefined;
    await page?.goto(url);
    const times = [];
    for (let i = 1; i <= saves; i++) {
      const marker = `Designer loop marker ${Date.now()}-${i}.`;
      const saved = performance.now();
      await edit('openapi/info-description.md', 'An institution', ` (${marker})`);
      if (page) {
        await page.getByText(marker, { exact: false }).first().waitFor({ timeout: 120_000 });
      } else {
        await waitFor(
          async () => (await (await fetch(url)).text()).includes(marker) || undefined,
          120_000,
        );
      }
      times.push(performance.now() - saved);
    }
    await browser?.close();
    const sorted = [...times].sort((a, b) => a - b);
    rows.push({
      step: `docs:dev, a save until the page shows it (median of ${saves})`,
      command: 'edit openapi/info-description.md',
      ms: sorted[Math.floor(sorted.length / 2)] ?? 0,
      result: `${browser ? 'seen in chromium' : 'seen in the served page (no chromium)'}; each: ${times.map(seconds).join(', ')}`,
    });
  } catch (error) {
    rows.push({
      step: 'docs:dev',
      command: 'npm run docs:dev',
      ms: performance.now() - started,
      result: `failed: ${error instanceof Error ? error.message : error} (see docs-dev.log)`,
    });
  } finally {
    stop();
    await writeFile(join(logs, 'docs-dev.log'), output);
  }
}

/**
 * @template T
 * @param {() => T | undefined | Promise<T | undefined>} probe @param {number} timeoutMs
 * @returns {Promise<T>}
 */
async function waitFor(probe, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`not within ${timeoutMs / 1000} s`);
}

try {
  console.error(`cloning ${values.from} (HEAD) into ${clone}`);
  const cloned = await new Promise((resolve) =>
    spawn('git', ['clone', '--quiet', '--no-hardlinks', values.from, clone], {
      stdio: 'inherit',
    }).on('close', resolve),
  );
  if (cloned !== 0) throw new Error('git clone failed');
  await mkdir(logs);
  // The measurement's own files stay out of git's view in the clone (turbo reads .gitignore).
  await writeFile(join(clone, '.git', 'info', 'exclude'), '.designer-loop/\n');

  if (
    (await step(
      'install (not part of the loop)',
      'npm',
      ['ci', '--no-audit', '--no-fund'],
      'install',
    )) !== 0
  ) {
    throw new Error('npm ci failed');
  }
  await step('lint, first run on the clone', lint[0], lint[1], 'lint-first');
  await docsDev();
  // Back to the committed text, so the tests below see only the edits they are about.
  await run('git', ['checkout', '--', 'openapi/info-description.md'], 'restore');
  await step("test, first run (fills turbo's cache)", test[0], test[1], 'test-first');

  await edit(
    'openapi/paths/api_v1_external_users.yaml',
    '    Registers a user with the calling institution',
    ' (a description-only change of the designer-loop measurement)',
  );
  await step('lint after a description-only change', lint[0], lint[1], 'lint-description');
  await step('test after a description-only change', test[0], test[1], 'test-description');

  await edit(
    'openapi/components/schemas/UserInput.yaml',
    '\nproperties:\n',
    [
      '  preferredName:',
      '    description: The name the customer likes to be called by, up to 100 characters, or null.',
      '    type:',
      '      - string',
      "      - 'null'",
      '    maxLength: 100',
      '',
    ].join('\n'),
  );
  await step('lint after a new optional field', lint[0], lint[1], 'lint-field');
  await step('test after a new optional field', test[0], test[1], 'test-field');
} catch (error) {
  console.error(`designer loop: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  const scope = workspace ? ` (scope: ${workspace} only)` : '';
  console.log(`\n| step${scope} | command | wall time | result |\n|---|---|---:|---|`);
  for (const row of rows) {
    console.log(`| ${row.step} | \`${row.command}\` | ${seconds(row.ms)} | ${row.result} |`);
  }
  if (rows.some((row) => row.result.startsWith('failed'))) process.exitCode = 1;
  if (values.keep) console.error(`\nkept the clone: ${clone} (logs in ${logs})`);
  else await rm(clone, { recursive: true, force: true });
}
