/**
 * The keys signers use by mistake instead of the secret key's UTF-8 bytes, and the MACs that are
 * not HMACs of the secret key at all (spec: `SignatureDiagnosis.key`): the public key; the secret
 * decoded (hex, base64), cut (its `sk_` prefix stripped, then decoded or not), or kept with what
 * surrounded it where it was stored (a final newline, a carriage return, quotes); an empty key
 * (a decoding that failed); the key and the message swapped; a hash of the secret and the message
 * joined. Each is tried with one MAC (or digest) of the message, in constant time.
 *
 * @module
 */
import type { DiagnosisSpending } from './diagnosis-budget.js';
import type { DiagnosisCrypto, MacHash } from './diagnosis-crypto.js';

/** What a misused HMAC key was (spec: `SignatureDiagnosis.key`). */
export type MisusedKey =
  | 'public-key'
  | 'secret-hex-decoded'
  | 'secret-base64-decoded'
  | 'secret-with-whitespace'
  | 'secret-in-quotes'
  | 'secret-without-prefix'
  | 'empty'
  | 'message-as-key'
  | 'not-hmac'
  | 'secret-as-public-key';

/** A misuse found: which, and what it is in words (never the key itself). */
export interface KeyMisuse {
  key: MisusedKey;
  /** The object of "… is …": `the HMAC keyed with the secret key followed by a newline (…)`. */
  what: string;
  /** What to do instead. */
  advice: string;
}

/** A guess: how the MAC would have been made. */
type Guess = KeyMisuse &
  (
    | { check: 'key'; bytes: Uint8Array }
    | { check: 'swapped' }
    | { check: 'hash'; order: 'secret-first' | 'message-first' }
  );

const utf8 = new TextEncoder();

const rightKey =
  'The HMAC key is the secret key\'s UTF-8 bytes, as they are (openssl dgst -hmac "$INSTITUTION_SECRET_KEY"), never decoded.';
const trimmed =
  "The HMAC key is the secret key's UTF-8 bytes and nothing around them: trim what was stored with it.";

/**
 * The bytes of standard or URL-safe base64, padded or not, as a lenient decoder (Node's `Buffer`)
 * reads them: a last character that completes no byte is dropped. Undefined when it is neither.
 */
export function base64Bytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  let standard = text.replace(/=+$/, '').replaceAll('-', '+').replaceAll('_', '/');
  if (standard.length % 4 === 1) standard = standard.slice(0, -1);
  try {
    const binary = atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, '='));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** The bytes of the hex pairs `text` starts with, as Node's and Go's decoders give them. */
function hexPrefixBytes(text: string): Uint8Array {
  const pairs = /^(?:[0-9a-fA-F]{2})*/.exec(text)?.[0] ?? '';
  const bytes = new Uint8Array(pairs.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = Number.parseInt(pairs.slice(i * 2, i * 2 + 2), 16);
  }
  return bytes;
}

/** A misuse of the keys, and the bytes a signer that made it keyed its HMAC with. */
type Candidate = [KeyMisuse, Uint8Array];

const secret = (what: string) => `the HMAC keyed with the secret key ${what}`;

/** The secret key's prefix (`sk_`), if it has one, and what follows it. */
function prefixOf(secretKey: string) {
  const prefix = /^[a-z]{1,8}_/.exec(secretKey)?.[0];
  return { prefix, rest: prefix ? secretKey.slice(prefix.length) : undefined };
}

/**
 * The most common misuses of the keys, most common first: the wrong key, a stored key's extra
 * characters, a decoding.
 */
function commonCandidates(publicKey: string, secretKey: string): Candidate[] {
  const candidates: Candidate[] = [];
  const { prefix, rest } = prefixOf(secretKey);
  candidates.push([
    { key: 'public-key', what: 'the HMAC keyed with the public key', advice: rightKey },
    utf8.encode(publicKey),
  ]);
  candidates.push([
    {
      key: 'secret-with-whitespace',
      what: secret(
        'followed by a newline (\\n), as a file read whole, or written by echo without -n, keeps it',
      ),
      advice: trimmed,
    },
    utf8.encode(`${secretKey}\n`),
  ]);
  candidates.push([
    {
      key: 'secret-in-quotes',
      what: secret('in its double quotes, as a .env value read with its quotes is'),
      advice: `${trimmed.replace('trim what was stored with it', 'remove the quotes')}`,
    },
    utf8.encode(`"${secretKey}"`),
  ]);
  candidates.push([
    {
      key: 'empty',
      what: "the HMAC keyed with an empty key: a decoding of the secret key that failed gives no bytes (PHP's hex2bin, Go's hex.DecodeString with its error ignored, or Node's Buffer.from(key, 'hex') of a key that is not hex)",
      advice: rightKey,
    },
    new Uint8Array(0),
  ]);
  const restBase64 = rest === undefined ? undefined : base64Bytes(rest);
  if (prefix && restBase64 && restBase64.length > 0) {
    candidates.push([
      {
        key: 'secret-without-prefix',
        what: secret(`without its "${prefix}" prefix, the rest decoded from base64`),
        advice: `The "${prefix}" prefix is part of the key, and nothing is decoded. ${rightKey}`,
      },
      restBase64,
    ]);
  }
  const whole = base64Bytes(secretKey);
  if (whole && whole.length > 0) {
    candidates.push([
      { key: 'secret-base64-decoded', what: secret('decoded from base64'), advice: rightKey },
      whole,
    ]);
  }
  if (/^(?:[0-9a-fA-F]{2})+$/.test(secretKey)) {
    candidates.push([
      { key: 'secret-hex-decoded', what: secret('decoded from hex'), advice: rightKey },
      hexPrefixBytes(secretKey),
    ]);
  }
  return candidates;
}

/**
 * The rarer misuses, after the common ones: other line ends, quotes and spaces, partial
 * decodings.
 */
function rarerCandidates(secretKey: string): Candidate[] {
  const candidates: Candidate[] = [];
  const { prefix, rest } = prefixOf(secretKey);
  candidates.push([
    {
      key: 'secret-with-whitespace',
      what: secret(
        'followed by a carriage return (\\r), as a line of a file saved with Windows line ends and split on \\n keeps it',
      ),
      advice: trimmed,
    },
    utf8.encode(`${secretKey}\r`),
  ]);
  candidates.push([
    {
      key: 'secret-with-whitespace',
      what: secret('followed by a carriage return and a newline (\\r\\n)'),
      advice: trimmed,
    },
    utf8.encode(`${secretKey}\r\n`),
  ]);
  candidates.push([
    {
      key: 'secret-in-quotes',
      what: secret('in its single quotes, as a .env value read with its quotes is'),
      advice: `${trimmed.replace('trim what was stored with it', 'remove the quotes')}`,
    },
    utf8.encode(`'${secretKey}'`),
  ]);
  if (prefix && rest) {
    candidates.push([
      {
        key: 'secret-without-prefix',
        what: secret(`without its "${prefix}" prefix`),
        advice: `The "${prefix}" prefix is part of the key. ${rightKey}`,
      },
      utf8.encode(rest),
    ]);
    const restHex = hexPrefixBytes(rest);
    if (restHex.length > 0) {
      candidates.push([
        {
          key: 'secret-without-prefix',
          what: secret(
            `without its "${prefix}" prefix, the rest decoded from hex as far as it is hex`,
          ),
          advice: `The "${prefix}" prefix is part of the key, and nothing is decoded. ${rightKey}`,
        },
        restHex,
      ]);
    }
  }
  const partialHex = hexPrefixBytes(secretKey);
  if (partialHex.length > 0) {
    candidates.push([
      {
        key: 'secret-hex-decoded',
        what: secret(
          'decoded from hex as far as it is hex (a decoder that stops at the first character that is not)',
        ),
        advice: rightKey,
      },
      partialHex,
    ]);
  }
  candidates.push([
    { key: 'secret-with-whitespace', what: secret('followed by a space'), advice: trimmed },
    utf8.encode(`${secretKey} `),
  ]);
  candidates.push([
    { key: 'secret-with-whitespace', what: secret('with a space before it'), advice: trimmed },
    utf8.encode(` ${secretKey}`),
  ]);
  return candidates;
}

/** The guesses for a key pair, most common first, each distinct key once. */
function guesses(publicKey: string, secretKey: string, message: 'body' | 'base'): Guess[] {
  const list: Guess[] = [];
  const seen: Uint8Array[] = [utf8.encode(secretKey)];
  for (const [misuse, bytes] of [
    ...commonCandidates(publicKey, secretKey),
    ...rarerCandidates(secretKey),
  ]) {
    // An HMAC pads a short key with zeros: an empty key is the key of one zero byte.
    const effective = bytes.length === 0 ? new Uint8Array(1) : bytes;
    if (seen.some((other) => sameBytes(other, effective))) continue;
    seen.push(effective);
    list.push({ ...misuse, check: 'key', bytes: effective });
  }
  const messageWords = message === 'body' ? 'the body' : 'the signature base';
  list.push({
    key: 'message-as-key',
    what: `the HMAC keyed with ${messageWords}, over the secret key: the HMAC's key and message are swapped`,
    advice:
      message === 'body'
        ? "The key is the secret key and the message the body: hash_hmac('sha256', $body, $secretKey) in PHP (the data first, then the key), createHmac('sha256', secretKey).update(body) in Node."
        : 'The key is the secret key and the message the signature base.',
    check: 'swapped',
  });
  const notHmac = (order: 'secret-first' | 'message-first') => ({
    key: 'not-hmac' as const,
    what: `not an HMAC: it is the plain hash of ${order === 'secret-first' ? `the secret key followed by ${messageWords}` : `${messageWords} followed by the secret key`}, joined`,
    advice:
      'Compute an HMAC keyed with the secret key (hash_hmac, hmac.new, crypto/hmac, javax.crypto.Mac, createHmac), not a hash of the key and the message joined.',
    check: 'hash' as const,
    order,
  });
  list.push(notHmac('secret-first'), notHmac('message-first'));
  return list;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `a` equals `b`, in time that depends on their lengths only. */
function equalInConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

/**
 * The misuse whose MAC of `data` is `mac`, if any: each guess costs one MAC or digest of `data`,
 * a candidate taken from `spending`, and is compared in constant time.
 */
export async function findKeyMisuse(
  crypto: DiagnosisCrypto,
  spending: DiagnosisSpending,
  keys: { publicKey: string; secretKey: string },
  hash: MacHash,
  mac: Uint8Array<ArrayBuffer>,
  data: Uint8Array,
  message: 'body' | 'base',
): Promise<KeyMisuse | undefined> {
  const signed = new Uint8Array(data);
  const secret = utf8.encode(keys.secretKey);
  const digestName = hash === 'SHA-256' ? 'sha-256' : 'sha-512';
  for (const guess of guesses(keys.publicKey, keys.secretKey, message)) {
    // One native MAC of at most the body's limit (64 KiB) costs well under 0.1 ms: a guess counts
    // as a candidate, not as bytes written (the budget's bytes are the variants' writing).
    if (!spending.take(0)) return undefined;
    let found: boolean;
    if (guess.check === 'key') {
      found = await (await crypto.macCheck(guess.bytes, hash))(mac, signed);
    } else if (guess.check === 'swapped') {
      const swapped = signed.length === 0 ? new Uint8Array(1) : signed;
      found = await (await crypto.macCheck(swapped, hash))(mac, new Uint8Array(secret));
    } else {
      const joined =
        guess.order === 'secret-first' ? concat(secret, signed) : concat(signed, secret);
      found = equalInConstantTime(await crypto.digest(digestName, joined), mac);
    }
    if (found) return { key: guess.key, what: guess.what, advice: guess.advice };
  }
  return undefined;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
