/**
 * The test-vector runners in `vector-runners/` (Python, PHP, Go, Java), which the package ships
 * so an implementer has a tested reference in their own language: each must pass every vector of
 * the published `test-vectors.json`, and must fail, naming the vector, when a signature or a body
 * is wrong. They run on the toolchains Debian 12 ships (`.ci/run` installs them); Go and Java
 * are compiled (and linted) once per text by `@institution-api/test-support/compiled-programs`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CompiledProgram,
  compileGo,
  compileJava,
} from '@institution-api/test-support/compiled-programs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestVectorFile, vectorFile, vectors } from './support/vectors.js';

const runnersDir = fileURLToPath(new URL('../vector-runners/', import.meta.url));
const vectorsPath = fileURLToPath(new URL('../test-vectors.json', import.meta.url));
const read = (file: string) => readFileSync(join(runnersDir, file), 'utf8');

/** How each language's runner starts, given its file in vector-runners/. */
const runners: [string, () => Promise<CompiledProgram>][] = [
  ['Python', async () => ({ command: 'python3', args: [join(runnersDir, 'check_vectors.py')] })],
  ['PHP', async () => ({ command: 'php', args: [join(runnersDir, 'check_vectors.php')] })],
  ['Go', () => compileGo(read('check_vectors.go'))],
  ['Java', () => compileJava(read('CheckVectors.java'))],
];

/** Runs a program to its end; resolves with its exit code and output, whatever the code. */
function run(program: CompiledProgram, vectorFilePath: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      program.command,
      [...program.args, vectorFilePath],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let scratch: string;
/** The published file with one signature and one body changed. */
let brokenPath: string;
const [wrongSignature, wrongBody] = [vectors[1], vectors[6]];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'vector-runners-'));
  const broken = structuredClone(vectorFile) as TestVectorFile;
  const [signed, bodied] = [broken.vectors[1], broken.vectors[6]];
  if (!signed || !bodied || !wrongSignature || !wrongBody) throw new Error('too few vectors');
  // one hex digit changed: a runner that compares loosely (a prefix, case) would miss it
  signed.signature = `${signed.signature.slice(0, -1)}${signed.signature.endsWith('0') ? '1' : '0'}`;
  // the body text no longer matches its bytes: a runner must sign the bytes and say so
  bodied.body = `${bodied.body} `;
  brokenPath = join(scratch, 'broken-vectors.json');
  await writeFile(brokenPath, JSON.stringify(broken, null, 2));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe.each(runners)('the %s runner', { timeout: 180_000 }, (_, start) => {
  it(`passes all ${vectors.length} published vectors`, async () => {
    const result = await run(await start(), vectorsPath);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${vectors.length} vectors OK\n`);
    expect(result.code).toBe(0);
  });

  it('fails on a wrong signature and on a body that is not its bytes, naming each vector', async () => {
    const result = await run(await start(), brokenPath);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]?.startsWith(`FAIL ${wrongSignature?.name}: computed `), lines[0]).toBe(true);
    expect(lines[1]).toBe(`FAIL ${wrongBody?.name}: bodyBase64 is not the UTF-8 encoding of body`);
    expect(lines[2]).toBe(`2 of ${vectors.length} vectors failed`);
  });
});
