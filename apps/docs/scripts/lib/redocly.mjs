/**
 * Running the pinned Redocly CLI (`@redocly/cli`, a devDependency) as a child process, always with
 * telemetry off (ARCHITECTURE.md, "What the code relies on in its libraries": the page embeds
 * telemetry unless REDOCLY_TELEMETRY=off is set when building).
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const cli = join(
  dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
  'bin/cli.js',
);

/**
 * Runs `redocly <args>` and resolves to its exit code and output (stdout and stderr together,
 * without the Node 20 end-of-life notice Redocly CLI 2.77 boxes around every run).
 *
 * @param {string[]} args
 * @param {string} cwd
 * @returns {Promise<{ code: number | null; output: string }>}
 */
export function redocly(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: withoutNotice(output) }));
  });
}

/** @param {string} output */
function withoutNotice(output) {
  return output
    .split('\n')
    .filter((line) => !/^\s*[╔║╚]/.test(line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
