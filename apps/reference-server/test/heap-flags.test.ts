import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const startScript = (packageJson: string): string =>
  JSON.parse(readFileSync(new URL(packageJson, import.meta.url), 'utf8')).scripts.start;

/**
 * The memory budget (bench/README.md: at most 50 MiB of growth under load) holds with the V8 flags of the
 * package's `start` script, which Node takes on its command line only: `npm start` at the root must
 * pass the same ones (the benchmarks read them from the package's script).
 */
describe('the heap flags the server runs with', () => {
  const flags = startScript('../package.json')
    .split(' ')
    .filter((word) => word.startsWith('--'));

  it('cap the young generation and the old generation', () => {
    expect(flags.map((flag) => flag.split('=')[0])).toEqual([
      '--max-semi-space-size',
      '--max-old-space-size',
    ]);
  });

  it('are passed by `npm start` at the root too', () => {
    expect(startScript('../../../package.json')).toBe(
      `exec node ${flags.join(' ')} scripts/start.mjs`,
    );
  });
});
