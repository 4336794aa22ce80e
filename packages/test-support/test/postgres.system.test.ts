/**
 * The throwaway PostgreSQL of ../src/postgres.ts outlives no test run: when the process that
 * started it dies without its teardown (SIGKILL here; turbo ending vitest, Ctrl-C), the server
 * stops, instead of holding a port until someone finds its PID.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { acceptsConnections } from '../src/free-port.ts';
import { describeWith } from '../src/requirements.ts';

const postgresModule = fileURLToPath(new URL('../src/postgres.ts', import.meta.url));
describeWith('postgres', 'startPostgres', () => {
  it('stops the server when the process that started it is killed before its teardown', async () => {
    const program = `
      import { startPostgres } from ${JSON.stringify(postgresModule)};
      const postgres = await startPostgres();
      console.log(postgres.url);
      setInterval(() => {}, 60_000);`;
    const child = spawn(
      process.execPath,
      ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', program],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [url] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const port = Number(new URL(url).port);
    expect(await acceptsConnections(port)).toBe(true);

    child.kill('SIGKILL');
    await expect
      .poll(() => acceptsConnections(port), { timeout: 30_000, interval: 250 })
      .toBe(false);
  }, 90_000);
});
