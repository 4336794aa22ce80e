/**
 * Runs the corpus of real mistakes (corpus.ts): each case's program, in its language, sends its
 * request through a capturing proxy to a reference server (in its sandbox mode, or in production
 * mode, where every refusal is the one uniform `401`); the captured request is given to
 * `institution-api doctor`; and what both said is judged against what the case expects: named
 * (the right cause, and the words that say what to change, from both), partly, or not, and
 * whether anything said was false. Shared by the system test (mistakes.system.test.ts) and the
 * command that prints the share named per class (`npm run measure:diagnosis`).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileGo, compileJava } from '@institution-api/test-support/compiled-programs';
import {
  type Exchange,
  requestMessage,
  startRecordingProxy,
} from '@institution-api/test-support/recording-proxy';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { run } from '@institution-api/test-support/run-program';
import { distinctUserBody } from '@institution-api/test-support/user-bodies';
import {
  type ControlCase,
  caseId,
  controls,
  corpus,
  type Expected,
  type Language,
  type MistakeCase,
  mistakeClasses,
  type Word,
} from './corpus.ts';
import { startForwardingHop } from './forwarding-hop.ts';

const mistakesDir = fileURLToPath(new URL('./mistakes/', import.meta.url));

/** The key pairs of the corpus's server, as the service issues them (`pk_`, `sk_` and base64url). */
export interface CorpusKeyPairs {
  any: Credential;
  required: Credential;
  hex: Credential;
}

/** Fresh key pairs: one per policy, and one whose secret is hex (an older issue of keys). */
export function corpusKeyPairs(): CorpusKeyPairs {
  const issued = (institution: string, extra: Partial<Credential> = {}): Credential => ({
    institution,
    publicKey: `pk_${randomBytes(18).toString('base64url')}`,
    secretKey: `sk_${randomBytes(32).toString('base64url')}`,
    ...extra,
  });
  return {
    any: issued('Corpus institution'),
    required: issued('Corpus institution, message signatures', { messageSignature: 'required' }),
    hex: issued('Corpus institution, hex secret', { secretKey: randomBytes(32).toString('hex') }),
  };
}

/** Starts the reference server with the corpus's key pairs: the sandbox, or production mode. */
export function startCorpusServer(
  keys: CorpusKeyPairs,
  mode: 'sandbox' | 'production',
): Promise<RunningServer> {
  return startReferenceServer({
    credentials: [keys.any, keys.required, keys.hex],
    env: {
      NODE_ENV: mode === 'production' ? 'production' : 'development',
      LOG_LEVEL: 'info',
    },
  });
}

/** How a language's program starts: the command and the arguments before the case's name. */
type Launcher = { command: string; args: string[] };

const launchers = new Map<Language, Promise<Launcher>>();

/** The program of `language`, compiled (Go, Java) once per process. */
export function launcher(language: Language): Promise<Launcher> {
  let found = launchers.get(language);
  if (!found) {
    found = launch(language);
    launchers.set(language, found);
  }
  return found;
}

async function launch(language: Language): Promise<Launcher> {
  switch (language) {
    case 'python':
      // -B: no __pycache__ beside the program.
      return { command: 'python3', args: ['-B', join(mistakesDir, 'python', 'mistakes.py')] };
    case 'php':
      return { command: 'php', args: [join(mistakesDir, 'php', 'mistakes.php')] };
    case 'node':
      return { command: process.execPath, args: [join(mistakesDir, 'node', 'mistakes.mjs')] };
    case 'go':
      return compileGo(await readFile(join(mistakesDir, 'go', 'mistakes.go'), 'utf8'));
    case 'java':
      return compileJava(await readFile(join(mistakesDir, 'java', 'Mistakes.java'), 'utf8'));
  }
}

/** The built CLI's entry point, `institution-api`. */
function cliBin(): string {
  const manifest = createRequire(import.meta.url).resolve('@institution-api/cli/package.json');
  return join(dirname(manifest), 'bin', 'institution-api.js');
}

/** What one case's run left: what the service answered, and what the doctor printed. */
export interface CaseRun {
  id: string;
  /** The status of each request the program sent, in order. */
  statuses: number[];
  /** The last answer's body, parsed (a problem for a refusal). */
  answer: unknown;
  /** Every answer's header lines and body, as text (for the scan for secrets). */
  answers: string;
  /** The doctor's exit code and output on the last request as captured (sandbox runs only). */
  doctor?: { code: number | null; stdout: string; stderr: string };
  /** What the program printed, when it failed. */
  programOutput: string;
}

/** Runs one case (or control) against `server`, and the doctor on what it sent last. */
export async function runCase(
  mistake: MistakeCase | ControlCase,
  server: RunningServer,
  keys: CorpusKeyPairs,
  options: { doctor: boolean; scratch: string },
): Promise<CaseRun> {
  // A control signs both ways for a key pair that requires it; a mistake names its key pair.
  const keyPair = keys['expect' in mistake ? (mistake.keyPair ?? 'any') : 'required'];
  const capture = await startRecordingProxy(new URL(server.url), { keepHost: true });
  const hop =
    'hop' in mistake && mistake.hop
      ? await startForwardingHop(capture.url, mistake.hop)
      : undefined;
  try {
    const user = distinctUserBody('user' in mistake ? (mistake.user ?? {}) : {}) as Record<
      string,
      unknown
    >;
    const { command, args } = await launcher(mistake.language);
    const result = await run(command, [...args, mistake.name], {
      cwd: options.scratch,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? options.scratch,
        API_URL: hop?.url ?? capture.url,
        PUBLIC_KEY: keyPair.publicKey,
        SECRET_KEY: keyPair.secretKey,
        USER_JSON: JSON.stringify(user),
        ...(await javaFields(user, options.scratch)),
        ...(await secretFiles(keyPair, options.scratch)),
        ...('env' in mistake ? mistake.env : {}),
      },
      timeoutMs: 120_000,
    });
    const exchanges = capture.exchanges;
    const last = exchanges.at(-1);
    const caseRun: CaseRun = {
      id: caseId({
        language: mistake.language,
        name: mistake.name,
        hop: 'hop' in mistake ? mistake.hop : undefined,
      }),
      statuses: exchanges.map((exchange) => exchange.status),
      answer: last ? parseJson(last.answer.body.toString('utf8')) : undefined,
      answers: exchanges.map(answerText).join('\n'),
      programOutput: `exit ${result.code}\n${result.stdout}${result.stderr}`,
    };
    if (options.doctor && last) caseRun.doctor = await runDoctor(last, keyPair, options.scratch);
    return caseRun;
  } finally {
    await hop?.close();
    await capture.close();
  }
}

/**
 * The user's fields as the Java program reads them (it builds its JSON with String.format): a
 * properties file in UTF-8, read as such whatever the platform's charset.
 */
async function javaFields(
  user: Record<string, unknown>,
  dir: string,
): Promise<Record<string, string>> {
  const names = [
    'email',
    'firstName',
    'lastName',
    'mobileNumber',
    'ghanaCardNumber',
    'monthlyIncome',
    'image',
    'accountNumber',
    'accountName',
    'network',
  ];
  const file = join(dir, `user-${randomBytes(6).toString('hex')}.properties`);
  await writeFile(file, names.map((name) => `${name}=${String(user[name] ?? '')}\n`).join(''));
  return { USER_FILE: file };
}

/** The files an integrator keeps the keys in: as `echo` writes them, and `.env` files. */
async function secretFiles(keyPair: Credential, dir: string): Promise<Record<string, string>> {
  const { publicKey, secretKey } = keyPair;
  const files = {
    SECRET_FILE: `${secretKey}\n`,
    DOTENV_FILE: `INSTITUTION_PUBLIC_KEY="${publicKey}"\nINSTITUTION_SECRET_KEY="${secretKey}"\n`,
    DOTENV_SINGLE_QUOTED_FILE: `INSTITUTION_PUBLIC_KEY='${publicKey}'\nINSTITUTION_SECRET_KEY='${secretKey}'\n`,
    DOTENV_CRLF_FILE: `INSTITUTION_PUBLIC_KEY=${publicKey}\r\nINSTITUTION_SECRET_KEY=${secretKey}\r\n`,
  };
  const paths: Record<string, string> = {};
  for (const [name, text] of Object.entries(files)) {
    paths[name] = join(dir, `${name.toLowerCase()}-${publicKey}`);
    await writeFile(paths[name], text);
  }
  return paths;
}

function answerText(exchange: Exchange): string {
  const headers: string[] = [];
  for (let i = 0; i + 1 < exchange.answer.rawHeaders.length; i += 2) {
    headers.push(`${exchange.answer.rawHeaders[i]}: ${exchange.answer.rawHeaders[i + 1]}`);
  }
  return `${exchange.status}\n${headers.join('\n')}\n\n${exchange.answer.body.toString('utf8')}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `institution-api doctor` on the request as captured, with the integrator's two variables. */
async function runDoctor(exchange: Exchange, keyPair: Credential, dir: string) {
  const file = join(dir, `captured-${randomBytes(6).toString('hex')}.http`);
  await writeFile(file, requestMessage(exchange.request));
  const result = await run(process.execPath, [cliBin(), 'doctor', file], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      INSTITUTION_PUBLIC_KEY: keyPair.publicKey,
      INSTITUTION_SECRET_KEY: keyPair.secretKey,
    },
  });
  await rm(file, { force: true });
  return { code: result.code, stdout: result.stdout, stderr: result.stderr };
}

/** How well a case was diagnosed. */
export type Verdict = 'named' | 'partly' | 'not';

/** A case's judgement: both sides, and what was false, if anything. */
export interface Judgement {
  verdict: Verdict;
  sandbox: { right: boolean; causeRight: boolean; missing: string[] };
  doctor: { right: boolean; causeRight: boolean; missing: string[] };
  /** What was said that is false (a wrong cause, key or component, or a word it must not say). */
  falseStatements: string[];
}

interface Diagnosis {
  cause?: string;
  signature?: string;
  explanation?: string;
  key?: string;
  component?: { name?: string };
}

const has = (text: string, word: Word) =>
  (typeof word === 'string' ? [word] : word).some((one) =>
    text.toLowerCase().includes(one.toLowerCase()),
  );
const wordText = (word: Word) => (typeof word === 'string' ? word : word.join(' | '));

/** Judges what the sandbox and the doctor said of `mistake`. */
export function judge(mistake: MistakeCase, caseRun: CaseRun): Judgement {
  const expected = mistake.expect;
  const falseStatements: string[] = [];
  const sandbox = judgeSandbox(expected, caseRun, falseStatements);
  const doctor = judgeDoctor(expected, caseRun.doctor, falseStatements);
  const verdict: Verdict =
    sandbox.right && doctor.right
      ? 'named'
      : sandbox.right || doctor.right || (sandbox.causeRight && doctor.causeRight)
        ? 'partly'
        : 'not';
  return { verdict, sandbox, doctor, falseStatements };
}

function judgeSandbox(expected: Expected, caseRun: CaseRun, falseStatements: string[]) {
  const status = caseRun.statuses.at(-1);
  const diagnosis = (caseRun.answer as { diagnosis?: Diagnosis } | undefined)?.diagnosis;
  if (expected.sandbox === 'plain-401') {
    const right = status === 401 && diagnosis === undefined;
    if (diagnosis) falseStatements.push(`sandbox: a diagnosis for a key it cannot know`);
    return { right, causeRight: right, missing: right ? [] : ['the uniform 401'] };
  }
  if (status !== 401 || diagnosis === undefined) {
    return { right: false, causeRight: false, missing: [`a 401 with a diagnosis (got ${status})`] };
  }
  const explanation = diagnosis.explanation ?? '';
  const missing: string[] = [];
  let causeRight = diagnosis.signature === expected.signature && diagnosis.cause === expected.cause;
  if (!causeRight) {
    missing.push(`cause ${expected.cause} (got ${diagnosis.signature} ${diagnosis.cause})`);
    if (diagnosis.cause !== 'no-known-mistake') {
      falseStatements.push(`sandbox: ${diagnosis.signature} ${diagnosis.cause}`);
    }
  }
  if (causeRight && expected.key !== undefined && diagnosis.key !== expected.key) {
    causeRight = false;
    missing.push(`key ${expected.key} (got ${diagnosis.key})`);
    falseStatements.push(`sandbox: key ${diagnosis.key}`);
  }
  if (
    causeRight &&
    expected.component !== undefined &&
    diagnosis.component?.name !== expected.component
  ) {
    causeRight = false;
    missing.push(`component ${expected.component} (got ${diagnosis.component?.name})`);
    if (diagnosis.component) falseStatements.push(`sandbox: component ${diagnosis.component.name}`);
  }
  for (const word of expected.words) if (!has(explanation, word)) missing.push(wordText(word));
  for (const word of expected.never ?? []) {
    if (has(explanation, word)) falseStatements.push(`sandbox says "${word}"`);
  }
  return { right: causeRight && missing.length === 0, causeRight, missing };
}

/** The cause the doctor names for one signature, from its report's lines. */
function doctorCause(stdout: string, signature: Expected['signature']): string | undefined {
  const line =
    signature === 'authorization'
      ? /^Authorization \(.*\): invalid, (\S+)$/m.exec(stdout)
      : /^message signature(?: \S+)?: invalid, (\S+)$/m.exec(stdout);
  return line?.[1];
}

function judgeDoctor(expected: Expected, doctor: CaseRun['doctor'], falseStatements: string[]) {
  if (doctor === undefined) return { right: false, causeRight: false, missing: ['a doctor run'] };
  const { stdout } = doctor;
  const missing: string[] = [];
  const words = expected.doctor?.words ?? expected.words;
  let causeRight: boolean;
  if (expected.doctor?.valid) {
    causeRight = doctor.code === 0;
    if (!causeRight) {
      missing.push(`exit 0 (got ${doctor.code})`);
      falseStatements.push('doctor: a signature that holds called invalid');
    }
  } else {
    const cause = doctorCause(stdout, expected.signature);
    causeRight = doctor.code === 1 && cause === expected.cause;
    if (!causeRight) {
      missing.push(`cause ${expected.cause} (got exit ${doctor.code}, ${cause})`);
      if (cause !== undefined && cause !== 'no-known-mistake') {
        falseStatements.push(`doctor: ${cause}`);
      }
      if (doctor.code === 0) falseStatements.push('doctor: valid');
    }
    if (
      causeRight &&
      expected.key !== undefined &&
      !stdout.includes(`HMAC key used: ${expected.key}`)
    ) {
      causeRight = false;
      missing.push(`key ${expected.key}`);
    }
    if (
      causeRight &&
      expected.component !== undefined &&
      !stdout.includes(`component: ${expected.component},`)
    ) {
      causeRight = false;
      missing.push(`component ${expected.component}`);
    }
  }
  for (const word of words) if (!has(stdout, word)) missing.push(wordText(word));
  for (const word of expected.never ?? []) {
    if (has(stdout, word)) falseStatements.push(`doctor says "${word}"`);
  }
  return { right: causeRight && missing.length === 0, causeRight, missing };
}

/**
 * Where a secret key shows in `text`: the key, or any 12 characters of what follows its
 * `sk_` prefix (a key cut short, or with its prefix stripped, still leaks).
 */
export function secretsIn(text: string, keys: CorpusKeyPairs): string[] {
  const found: string[] = [];
  for (const { institution, secretKey } of [keys.any, keys.required, keys.hex]) {
    const significant = secretKey.replace(/^sk_/, '');
    for (let i = 0; i + 12 <= significant.length; i++) {
      if (text.includes(significant.slice(i, i + 12))) {
        found.push(`${institution}'s secret key (characters ${i}–${i + 12})`);
        break;
      }
    }
  }
  return found;
}

/** One run of the whole corpus: every case and control, judged. */
export interface CorpusRun {
  mode: 'sandbox' | 'production';
  results: { mistake: MistakeCase; run: CaseRun; judgement?: Judgement }[];
  controls: { control: ControlCase; run: CaseRun }[];
  /** The server's log lines. */
  serverOutput: string;
  keys: CorpusKeyPairs;
}

/**
 * Runs every control and case against a server of `mode` (the doctor in the sandbox only),
 * `concurrency` at a time, and judges the sandbox's.
 */
export async function runCorpus(
  mode: 'sandbox' | 'production',
  options: { concurrency?: number; only?: (mistake: MistakeCase) => boolean } = {},
): Promise<CorpusRun> {
  const keys = corpusKeyPairs();
  const scratch = await mkdtemp(join(tmpdir(), 'institution-api-corpus-'));
  const server = await startCorpusServer(keys, mode);
  try {
    await Promise.all(
      [...new Set([...controls, ...corpus].map((one) => one.language))].map(launcher),
    );
    const doctor = mode === 'sandbox';
    const cases = corpus.filter(options.only ?? (() => true));
    const controlRuns = await pool(controls, options.concurrency ?? 2, (control) =>
      runCase(control, server, keys, { doctor, scratch }),
    );
    const runs = await pool(cases, options.concurrency ?? 2, (mistake) =>
      runCase(mistake, server, keys, { doctor, scratch }),
    );
    return {
      mode,
      keys,
      controls: controls.map((control, i) => ({ control, run: controlRuns[i] as CaseRun })),
      results: cases.map((mistake, i) => {
        const caseRun = runs[i] as CaseRun;
        return { mistake, run: caseRun, ...(doctor ? { judgement: judge(mistake, caseRun) } : {}) };
      }),
      serverOutput: server.output(),
    };
  } finally {
    await server.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** `items` mapped by `work`, at most `size` at a time, in order. */
async function pool<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return results;
}

/** Per class: how many cases, how many named, partly, not; and the share named of all. */
export function classTable(results: CorpusRun['results']): {
  rows: { class: string; n: number; named: number; partly: number; not: number }[];
  total: { n: number; named: number; partly: number; not: number; share: number };
  falseStatements: number;
} {
  const rows = mistakeClasses.map((name) => {
    const inClass = results.filter((result) => result.mistake.class === name);
    const count = (verdict: Verdict) =>
      inClass.filter((result) => result.judgement?.verdict === verdict).length;
    return {
      class: name,
      n: inClass.length,
      named: count('named'),
      partly: count('partly'),
      not: count('not'),
    };
  });
  const sum = (key: 'n' | 'named' | 'partly' | 'not') =>
    rows.reduce((total, row) => total + row[key], 0);
  const total = { n: sum('n'), named: sum('named'), partly: sum('partly'), not: sum('not') };
  return {
    rows,
    total: { ...total, share: total.n === 0 ? 0 : total.named / total.n },
    falseStatements: results.filter((result) => (result.judgement?.falseStatements.length ?? 0) > 0)
      .length,
  };
}

/** The table as Markdown. */
export function classTableMarkdown(table: ReturnType<typeof classTable>): string {
  const lines = [
    '| class | n | named | partly | not |',
    '|---|---:|---:|---:|---:|',
    ...table.rows.map(
      (row) => `| ${row.class} | ${row.n} | ${row.named} | ${row.partly} | ${row.not} |`,
    ),
    `| **all** | **${table.total.n}** | **${table.total.named}** | **${table.total.partly}** | **${table.total.not}** |`,
  ];
  return lines.join('\n');
}
