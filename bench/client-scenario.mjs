// The client's rows of the one benchmark table: packages/client/bench/client-overhead.mjs, run in a
// process of its own (its JIT and heap apart from the load generator's), timed by that process's
// CPU (BENCH_CLOCK=cpu: the load of other work on the machine does not count), read back for
// three figures measured in that run, in µs per call: bare openapi-fetch POST, the same POST
// signed both ways inline with node:crypto, and `createUser` with its defaults.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const clientDir = fileURLToPath(new URL('../packages/client/', import.meta.url));
const script = 'bench/client-overhead.mjs';

/**
 * Finds the figures in the client bench's output. With `--json` the bench may print a JSON
 * array of { name, microsecondsPerCall }; otherwise its text lines `  <name>   <n> µs/call …`.
 * The rule is by name, so reordered or added variants do not matter: the baseline is the variant
 * whose name contains "bare openapi-fetch" and not "signatures", the signed baseline the one whose
 * name contains "bare openapi-fetch" and "signatures inline" (undefined when the bench has none),
 * the client the one starting "createUser" whose name says "default" (else the first "createUser").
 */
export function parseClientOverhead(output) {
  const trimmed = output.trim();
  const variants = trimmed.startsWith('[')
    ? JSON.parse(trimmed).map(({ name, microsecondsPerCall }) => ({
        name,
        us: microsecondsPerCall,
      }))
    : [...output.matchAll(/^\s*(\S.*?)\s{2,}([\d.,]+)\s*µs\/call/gmu)].map(([, name, us]) => ({
        name,
        us: Number(us.replaceAll(',', '')),
      }));
  const createUsers = variants.filter(({ name }) => /^createUser/i.test(name));
  const bare = variants.find(
    ({ name }) => /bare openapi-fetch/i.test(name) && !/signatures/i.test(name),
  );
  const signedInline = variants.find(
    ({ name }) => /bare openapi-fetch/i.test(name) && /signatures inline/i.test(name),
  );
  const client = createUsers.find(({ name }) => /default/i.test(name)) ?? createUsers[0];
  if (!bare || !client || !(bare.us > 0) || !(client.us > 0)) {
    throw new Error(
      `the client bench's output has no "bare openapi-fetch" and "createUser" figures:\n${output}`,
    );
  }
  return { bare, signedInline, client };
}

function runClientBench(rounds) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, '--json'], {
      cwd: clientDir,
      env: { ...process.env, BENCH_ROUNDS: String(rounds), BENCH_CLOCK: 'cpu' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${script} exited with ${code}:\n${stderr}`)),
    );
  });
}

/**
 * The client scenario for runInterleaved: each run is one run of the client bench with `rounds`
 * rounds (it interleaves its variants and takes the median of its rounds itself). No warm-up
 * of its own here: the client bench warms up every variant before it measures.
 */
export function clientScenario({ rounds }) {
  if (!existsSync(`${clientDir}dist/index.js`)) {
    throw new Error('packages/client/dist is missing: run `npm run build` first.');
  }
  return {
    id: 'client',
    label: 'client',
    async run({ warmup } = {}) {
      if (warmup !== undefined) return undefined;
      return parseClientOverhead(await runClientBench(rounds));
    },
  };
}
