/**
 * The hosted CI (.github/workflows/ci.yml) runs what .ci/run runs: on the Debian 12 the tests'
 * toolchains are pinned to, with the Debian packages .ci/run installs, Node 24 from .nvmrc, and
 * the same commands in the same order (install, lint, typecheck, both tiers).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repository } from '../workspaces.js';

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string>;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { container?: string; steps: Step[]; env?: Record<string, string> }>;
}

const ciRun = readFileSync(join(repository, '.ci/run'), 'utf8');
const workflow = parse(
  readFileSync(join(repository, '.github/workflows/ci.yml'), 'utf8'),
) as Workflow;
const [job] = Object.values(workflow.jobs);
const steps = job?.steps ?? [];

/** The Debian packages .ci/run installs when missing (its `need+=(…)` lines). */
const ciRunPackages = [...ciRun.matchAll(/need\+=\(([^)]+)\)/g)].flatMap((match) =>
  (match[1] ?? '').trim().split(/\s+/),
);
/** The npm commands .ci/run runs at its top level, without their logging. */
const ciRunCommands = ciRun
  .split('\n')
  .filter((line) => /^npm /.test(line))
  .map((line) => line.replace(/\s+2>&1 \|.*$/, '').trim());

describe('the hosted CI workflow', () => {
  it('runs on pushes to main and on pull requests', () => {
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['push', 'pull_request']));
  });

  it('runs on Debian 12, as .ci/run assumes, with its environment', () => {
    expect(job?.container).toBe('debian:12');
    expect(job?.env).toMatchObject({ CI: 'true', REDOCLY_TELEMETRY: 'off' });
    expect(ciRun).toMatch(/export CI=true REDOCLY_TELEMETRY=off/);
  });

  it('installs every Debian package .ci/run installs', () => {
    expect(ciRunPackages.length).toBeGreaterThan(8);
    const installs = steps.map((step) => step.run ?? '').join('\n');
    for (const name of ciRunPackages) expect(installs).toMatch(new RegExp(`\\s${name}(\\s|$)`));
  });

  it('takes Node from .nvmrc, which says 24', () => {
    const node = steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
    expect(node?.with?.['node-version-file']).toBe('.nvmrc');
    expect(readFileSync(join(repository, '.nvmrc'), 'utf8').trim()).toBe('24');
  });

  it('runs the commands of .ci/run, in its order', () => {
    expect(ciRunCommands).toEqual([
      'npm ci --no-audit --no-fund',
      'npm run lint',
      'npm run typecheck',
      'npm test',
      'npm run test:system',
    ]);
    const commands = steps
      .map((step) => step.run?.trim())
      .filter((run): run is string => run?.startsWith('npm ') === true);
    expect(commands).toEqual(ciRunCommands);
  });
});
