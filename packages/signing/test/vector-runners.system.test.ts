/**
 * The test-vector runners in `vector-runners/` (Python, PHP, Go, Java), which the package ships
 * so an implementer has a tested reference in their own language: each must pass every vector of
 * the published `test-vectors.json`, the `Authorization` signatures and the RFC 9421 message
 * signatures (RFC 9421's own `hmac-sha256` example included), and must fail, naming the vector,
 * when a signature, a body, a covered component or the signature parameters are wrong. They run on the toolchains Debian 12 ships (`.ci/run` installs them); Go and Java
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
import {
  type MessageSignatureVector,
  messageSignatureVectors,
  type TestVectorFile,
  vectorFile,
  vectors,
} from './support/vectors.js';

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

const allVectors = vectors.length + messageSignatureVectors.length;

/** RFC 9421 Appendix B.2.5's signature, which a runner must compute from the RFC's key. */
const rfcSignature = 'pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=';

let scratch: string;
/**
 * The published file with one signature and one body changed, and four message-signature vectors
 * broken: the RFC's signature, a body under its Content-Digest, a covered `@path` (the captured
 * update sent to another user) and the signature parameters.
 */
let brokenPath: string;
const [wrongSignature, wrongBody] = [vectors[1], vectors[6]];
const rfcVector = messageSignatureVectors.find(({ signature }) => signature.includes(rfcSignature));
const [wrongDigest, wrongPath, wrongParams] = messageSignatureVectors.filter(
  (vector) => vector !== rfcVector && vector.contentDigest !== null,
);

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'vector-runners-'));
  const broken = structuredClone(vectorFile) as TestVectorFile & {
    messageSignatures: MessageSignatureVector[];
  };
  const [signed, bodied] = [broken.vectors[1], broken.vectors[6]];
  if (!signed || !bodied || !wrongSignature || !wrongBody) throw new Error('too few vectors');
  // one hex digit changed: a runner that compares loosely (a prefix, case) would miss it
  signed.signature = `${signed.signature.slice(0, -1)}${signed.signature.endsWith('0') ? '1' : '0'}`;
  // the body text no longer matches its bytes: a runner must sign the bytes and say so
  bodied.body = `${bodied.body} `;

  const brokenVector = (vector: MessageSignatureVector | undefined) => {
    const copy = broken.messageSignatures.find(({ name }) => name === vector?.name);
    if (!copy) throw new Error('too few message-signature vectors');
    return copy;
  };
  // one base64 character of the RFC's signature changed
  const rfc = brokenVector(rfcVector);
  rfc.signature = rfc.signature.replace(
    rfcSignature,
    `${rfcSignature[0] === 'p' ? 'q' : 'p'}${rfcSignature.slice(1)}`,
  );
  // another body, text and bytes alike, under the same Content-Digest and signature
  const bodyChanged = brokenVector(wrongDigest);
  bodyChanged.body = `${bodyChanged.body} `;
  bodyChanged.bodyBase64 = Buffer.from(bodyChanged.body).toString('base64');
  // the signature base of another path, under the same signature
  const pathChanged = brokenVector(wrongPath);
  pathChanged.signatureBase = pathChanged.signatureBase.replace(
    /^"@path": .*$/m,
    '"@path": /api/v1/external/users/00000000-0000-4000-8000-000000000000',
  );
  // Signature-Input's parameters no longer those the signature base ends with
  const paramsChanged = brokenVector(wrongParams);
  paramsChanged.signatureInput = paramsChanged.signatureInput.replace(
    /;created=(\d+)/,
    (_, created: string) => `;created=${Number(created) + 1}`,
  );
  brokenPath = join(scratch, 'broken-vectors.json');
  await writeFile(brokenPath, JSON.stringify(broken, null, 2));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe.each(runners)('the %s runner', { timeout: 180_000 }, (_, start) => {
  it(`passes all ${vectors.length} published vectors and ${messageSignatureVectors.length} message signatures`, async () => {
    const result = await run(await start(), vectorsPath);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      `${vectors.length} vectors and ${messageSignatureVectors.length} message-signature vectors OK\n`,
    );
    expect(result.code).toBe(0);
  });

  it('fails on a wrong signature and on a body that is not its bytes, naming each vector', async () => {
    const result = await run(await start(), brokenPath);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]?.startsWith(`FAIL ${wrongSignature?.name}: computed `), lines[0]).toBe(true);
    expect(lines[1]).toBe(`FAIL ${wrongBody?.name}: bodyBase64 is not the UTF-8 encoding of body`);
    expect(lines[6]).toBe(`6 of ${allVectors} vectors failed`);
  });

  it("fails on each broken message signature, naming it, and computes RFC 9421's own", async () => {
    const result = await run(await start(), brokenPath);
    const failures = result.stdout.trim().split('\n').slice(2, -1);
    expect(failures).toHaveLength(4);
    const inFileOrder = messageSignatureVectors.map(({ name }) => name);
    const byName = (line: string) =>
      inFileOrder.findIndex((name) => line.startsWith(`FAIL ${name}: `));
    expect([...failures].sort((a, b) => byName(a) - byName(b))).toEqual(failures);
    const failureOf = (vector: MessageSignatureVector | undefined) =>
      failures.find((line) => line.startsWith(`FAIL ${vector?.name}: `));

    // the computed value is the RFC's signature, from its base64 key and its signature base
    expect(failureOf(rfcVector)).toBe(`FAIL ${rfcVector?.name}: computed ${rfcVector?.signature}`);
    const algorithm = wrongDigest?.contentDigest.split('=')[0];
    expect(failureOf(wrongDigest)).toMatch(
      new RegExp(`^FAIL .*: content digest: computed ${algorithm}=:[A-Za-z0-9+/]+={0,2}:$`),
    );
    expect(failureOf(wrongDigest)).not.toContain(wrongDigest?.contentDigest);
    const label = wrongPath?.signatureInput.split('=')[0];
    expect(failureOf(wrongPath)).toMatch(
      new RegExp(`^FAIL .*: computed ${label}=:[A-Za-z0-9+/]{43}=:$`),
    );
    expect(failureOf(wrongPath)).not.toContain(wrongPath?.signature);
    expect(failureOf(wrongParams)).toBe(
      `FAIL ${wrongParams?.name}: the signature base does not end with signatureInput's parameters`,
    );
  });
});
