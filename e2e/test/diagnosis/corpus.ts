/**
 * The corpus of real mistakes: what integrators get wrong when they sign a create, made by the
 * ordinary code of each language in `mistakes/` (Python, PHP, Go, Java with the JDK alone, Node
 * with fetch and the two RFC 9421 libraries of npm), each with what a sandbox's `401` and
 * `institution-api doctor` must say of it: the signature it is about, the cause (spec:
 * `SignatureDiagnosis.cause`), the key or component found, and the words its explanation must
 * contain to say what to change. Where a mistake is reported in the wild, `seen` says where.
 *
 * @module
 */

/** The languages the corpus's programs are written in. */
export type Language = 'python' | 'php' | 'go' | 'java' | 'node';

/** The classes of the note's table. */
export const mistakeClasses = [
  'number spelling',
  're-serialization',
  'serializer flavour',
  'charset',
  'forwarding hop',
  'other bytes signed',
  'secret hygiene',
  'Authorization form',
  'message-signature fields',
  'digest encoding',
  'time units',
  'offline limits',
  'secret echo',
] as const;

export type MistakeClass = (typeof mistakeClasses)[number];

/** A word the explanation must contain (case-insensitive), or any one of several. */
export type Word = string | readonly string[];

/** What a sandbox and the doctor must say of a mistake. */
export interface Expected {
  /** Which signature the diagnosis is about. */
  signature: 'authorization' | 'message-signature';
  cause:
    | 'body-bytes-differ'
    | 'key-misused'
    | 'signature-base-differs'
    | 'authorization-malformed'
    | 'no-known-mistake';
  /** `key-misused`: what the HMAC was keyed with. */
  key?: string;
  /** `signature-base-differs`: the component or parameter found wrong. */
  component?: string;
  /** The words the explanation must contain, each (or one of each group). */
  words: readonly Word[];
  /** What would be false here: none of these may appear. */
  never?: readonly string[];
  /** The sandbox cannot tell (an unknown public key): the uniform `401` without a diagnosis. */
  sandbox?: 'plain-401';
  /**
   * Offline, both signatures hold for the doctor (it cannot know the nonces a service saw, nor a
   * key pair's policy): it must say valid, and the words of what it cannot check.
   */
  doctor?: { valid: true; words: readonly Word[] };
}

/** A forwarding hop between the program and the service, which rewrites the body. */
export type Hop =
  /** Re-encodes a UTF-8 body as ISO-8859-1 (a legacy gateway). */
  | 'latin1'
  /** Reads a UTF-8 body as ISO-8859-1 and writes it out as UTF-8 again (double encoding). */
  | 'double-encoding'
  /** Parses the JSON and writes it out again, compact (a gateway that validates JSON). */
  | 'json-rewrite';

/** One mistake, made by one program's case. */
export interface MistakeCase {
  language: Language;
  /** The case's name in its language's program. */
  name: string;
  class: MistakeClass;
  /** What the code does wrong, in words. */
  mistake: string;
  /** Where the mistake is reported (an issue tracker), when it is. */
  seen?: string;
  /** The key pair: `any` (the default), `required` (message signatures), `hex` (a hex secret). */
  keyPair?: 'any' | 'required' | 'hex';
  /** Changes of the user sent (the spec's MOMO example, with a card number and email of its own). */
  user?: Record<string, unknown>;
  /** More environment for the program (`TZ`, `JAVA_TOOL_OPTIONS`). */
  env?: Record<string, string>;
  hop?: Hop;
  expect: Expected;
  /**
   * Why the diagnosis leaves this mistake unnamed, when it does on purpose: it must then say
   * nothing false of it.
   */
  undiagnosed?: string;
}

/** A program that does everything right: the service accepts it, the doctor says valid. */
export interface ControlCase {
  language: Language;
  name: string;
  /** What it uses. */
  uses: string;
}

const twi = { lastName: 'Ɔfori-Mɛnsah' };
const latin1 = { lastName: 'Sénou' };
const integerIncome = { monthlyIncome: 2500 };
const queryImage = { image: 'https://cdn.example.com/users/ama.jpg?w=200&h=200' };
const berlin = { TZ: 'Europe/Berlin' };
const platformLatin1 = { JAVA_TOOL_OPTIONS: '-Dfile.encoding=ISO-8859-1' };

/** What a charset problem is never: a wrong key, or the client's serializing twice. */
const notTheKey = ['secret key', 'serialize once'];

/** The programs that do everything right (both signatures, a key pair that requires both). */
export const controls: readonly ControlCase[] = [
  { language: 'python', name: 'control', uses: 'urllib, json, hmac' },
  { language: 'php', name: 'control', uses: 'json_encode, hash_hmac, curl' },
  { language: 'go', name: 'control', uses: 'encoding/json, crypto/hmac, net/http' },
  { language: 'java', name: 'control', uses: 'String.format, Mac, HttpClient' },
  { language: 'node', name: 'control', uses: 'fetch, node:crypto' },
  { language: 'node', name: 'http-message-signatures-control', uses: 'http-message-signatures' },
  { language: 'node', name: 'http-message-sig-control', uses: 'http-message-sig' },
];

export const corpus: readonly MistakeCase[] = [
  // Number spellings: a float written 2500.0 or 2500.00 on one side only.
  {
    language: 'python',
    name: 'float-income-signed-sorted',
    class: 'number spelling',
    mistake: 'a float income (2500.0), signed as json.dumps(sort_keys=True), sent unsorted',
    seen: 'https://github.com/adcontextprotocol/adcp-client/issues/313',
    user: integerIncome,
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['sorted', 'exact bytes'],
    },
  },
  {
    language: 'python',
    name: 'float-income-signed-compact',
    class: 'number spelling',
    mistake:
      "a float income (2500.0), signed as json.dumps(separators=(',', ':')), sent with spaces",
    seen: 'https://github.com/prebid/salesagent/issues/1104',
    user: integerIncome,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['compact'] },
  },
  {
    language: 'php',
    name: 'zero-fraction-signed',
    class: 'number spelling',
    mistake: 'signed json_encode with JSON_PRESERVE_ZERO_FRACTION (2500.0), sent without (2500)',
    user: integerIncome,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['2500.0'] },
  },
  {
    language: 'php',
    name: 'zero-fraction-sent',
    class: 'number spelling',
    mistake: 'signed json_encode (2500), sent with JSON_PRESERVE_ZERO_FRACTION (2500.0)',
    user: integerIncome,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['2500'] },
  },
  {
    language: 'java',
    name: 'two-decimals-sent',
    class: 'number spelling',
    mistake: 'sent the income as String.format("%.2f") (2500.00), signed Double.toString (2500.0)',
    user: integerIncome,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['2500.0'] },
  },

  // Re-serialization, in both directions.
  {
    language: 'python',
    name: 'sent-sorted',
    class: 're-serialization',
    mistake: 'signed json.dumps(payload), sent json.dumps(payload, sort_keys=True)',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['order'] },
  },
  {
    language: 'go',
    name: 'struct-signed-map-sent',
    class: 're-serialization',
    mistake: 'signed json.Marshal of a struct, sent json.Marshal of a map (keys sorted)',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['order'] },
  },
  {
    language: 'go',
    name: 'encoder-newline-sent',
    class: 're-serialization',
    mistake: 'signed json.Marshal, sent json.Encoder output (a final newline)',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['newline'] },
  },
  {
    language: 'php',
    name: 'pretty-sent',
    class: 're-serialization',
    mistake: 'signed json_encode, sent json_encode(JSON_PRETTY_PRINT)',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['compact'] },
  },
  {
    language: 'php',
    name: 'pretty-signed',
    class: 're-serialization',
    mistake: 'signed json_encode(JSON_PRETTY_PRINT), sent json_encode',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['pretty'] },
  },
  {
    language: 'node',
    name: 'pretty-sent',
    class: 're-serialization',
    mistake: 'signed JSON.stringify(body), sent JSON.stringify(body, null, 2)',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['compact'] },
  },
  {
    language: 'java',
    name: 'jackson-layout-signed',
    class: 're-serialization',
    mistake:
      'signed the body as Jackson\'s pretty printer lays it out ("key" : value), sent compact',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['" : '] },
  },

  // Serializer flavours: escapes one side writes and the other does not.
  {
    language: 'python',
    name: 'ascii-escapes-signed',
    class: 'serializer flavour',
    mistake: 'signed json.dumps (non-ASCII as \\uXXXX), sent json.dumps(ensure_ascii=False)',
    user: twi,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['\\u'] },
  },
  {
    language: 'php',
    name: 'escaped-slashes-signed',
    class: 'serializer flavour',
    mistake:
      'signed json_encode (\\/ and \\uXXXX), sent with JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE',
    user: twi,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['\\/'] },
  },
  {
    language: 'php',
    name: 'escaped-slashes-sent',
    class: 'serializer flavour',
    mistake:
      'signed with JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE, sent json_encode (\\/ and \\uXXXX)',
    user: twi,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['\\/'] },
  },
  {
    language: 'go',
    name: 'html-escaped-signed',
    class: 'serializer flavour',
    mistake: 'signed json.Marshal (& as \\u0026), sent an Encoder with SetEscapeHTML(false)',
    user: queryImage,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['\\u0026'] },
  },
  {
    language: 'go',
    name: 'html-escaped-sent',
    class: 'serializer flavour',
    mistake: 'signed an Encoder with SetEscapeHTML(false), sent json.Marshal (& as \\u0026)',
    user: queryImage,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['\\u0026'] },
  },
  {
    language: 'java',
    name: 'html-safe-escapes-signed',
    class: 'serializer flavour',
    mistake:
      "signed the body escaped as Gson does (= as \\u003d, & as \\u0026, ' as \\u0027), sent plain",
    user: queryImage,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['\\u003d'] },
  },
  {
    language: 'java',
    name: 'uppercase-unicode-escapes-signed',
    class: 'serializer flavour',
    mistake: 'signed the body with non-ASCII escaped in uppercase hex (\\u0186), sent UTF-8',
    user: twi,
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['uppercase'] },
  },

  // Charsets: the text signed in one encoding, sent in another.
  {
    language: 'python',
    name: 'http-client-latin1',
    class: 'charset',
    mistake: 'http.client sends a str body as ISO-8859-1; the HMAC is of its UTF-8',
    user: latin1,
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['ISO-8859-1', 'UTF-8'],
      never: notTheKey,
    },
  },
  {
    language: 'java',
    name: 'platform-charset-sent',
    class: 'charset',
    mistake:
      "an OutputStreamWriter in the platform's charset (ISO-8859-1) sends; the HMAC is of UTF-8",
    user: latin1,
    env: platformLatin1,
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['ISO-8859-1', 'UTF-8'],
      never: notTheKey,
    },
  },
  {
    language: 'java',
    name: 'platform-charset-signed',
    class: 'charset',
    mistake: "the HMAC is of String.getBytes() in the platform's charset (ISO-8859-1); sent UTF-8",
    user: latin1,
    env: platformLatin1,
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['ISO-8859-1', 'UTF-8'],
      never: notTheKey,
    },
  },
  {
    language: 'php',
    name: 'utf8-encoded-twice',
    class: 'charset',
    mistake: 'utf8_encode() of a body that was UTF-8 already (é sent as Ã©)',
    user: latin1,
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['twice'],
      never: notTheKey,
    },
  },
  {
    language: 'node',
    name: 'latin1-sent',
    class: 'charset',
    mistake: "node:http's request.end(body, 'latin1'); the HMAC is of UTF-8",
    user: latin1,
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['ISO-8859-1', 'UTF-8'],
      never: notTheKey,
    },
  },

  // A hop between the client and the service rewrote the body after it was signed.
  {
    language: 'node',
    name: 'control',
    class: 'forwarding hop',
    mistake: 'right code, through a gateway that re-encodes the body as ISO-8859-1',
    user: latin1,
    hop: 'latin1',
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['proxy', 'ISO-8859-1'],
      never: notTheKey,
    },
  },
  {
    language: 'go',
    name: 'control',
    class: 'forwarding hop',
    mistake: 'right code, through a proxy that reads UTF-8 as ISO-8859-1 and encodes it again',
    user: latin1,
    hop: 'double-encoding',
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['proxy', 'twice'],
      never: notTheKey,
    },
  },
  {
    language: 'php',
    name: 'control',
    class: 'forwarding hop',
    mistake:
      "right code, through a gateway that parses the JSON and writes it again (PHP's \\/ lost)",
    hop: 'json-rewrite',
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['proxy'],
      never: ['serialize once'],
    },
  },

  // Other bytes signed than a serialization of the body.
  {
    language: 'python',
    name: 'dict-repr-signed',
    class: 'other bytes signed',
    mistake: "signed str(payload), Python's repr of the dict",
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['str('] },
  },
  {
    language: 'python',
    name: 'field-added-after-signing',
    class: 'other bytes signed',
    mistake: 'a field (isGhanaCardVerified) added to the payload after it was signed',
    user: { isGhanaCardVerified: undefined },
    expect: {
      signature: 'authorization',
      cause: 'body-bytes-differ',
      words: ['isGhanaCardVerified'],
    },
  },
  {
    language: 'node',
    name: 'stringified-twice',
    class: 'other bytes signed',
    mistake: 'fetch body JSON.stringify(text) of a text that was JSON already',
    seen: 'https://github.com/workos/workos-node/pull/1578',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['twice'] },
  },
  {
    language: 'node',
    name: 'object-in-template',
    class: 'other bytes signed',
    mistake: 'the HMAC of the payload in a template literal: "[object Object]"',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['[object Object]'] },
  },
  {
    language: 'node',
    name: 'empty-body-signed',
    class: 'other bytes signed',
    mistake: 'the HMAC made before the body was set: of no bytes',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['empty'] },
  },
  {
    language: 'go',
    name: 'method-and-path-signed',
    class: 'other bytes signed',
    mistake: 'the HMAC of "POST\\n/api/v1/external/users\\n" and the body',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['path'] },
  },

  // The secret key, kept with what surrounds it, cut, decoded, or not used as an HMAC key.
  {
    language: 'python',
    name: 'secret-file-newline',
    class: 'secret hygiene',
    mistake: 'the secret read from a file with its final newline',
    seen: 'https://github.com/alexellis/derek/issues/72',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-with-whitespace',
      words: ['newline'],
    },
  },
  {
    language: 'go',
    name: 'secret-file-newline',
    class: 'secret hygiene',
    mistake: 'os.ReadFile of the secret, its final newline kept',
    seen: 'https://github.com/kimdre/doco-cd/issues/545',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-with-whitespace',
      words: ['newline'],
    },
  },
  {
    language: 'node',
    name: 'dotenv-crlf',
    class: 'secret hygiene',
    mistake: 'a .env file with Windows line ends split on "\\n": the secret ends with "\\r"',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-with-whitespace',
      words: ['carriage return'],
    },
  },
  {
    language: 'python',
    name: 'dotenv-quotes',
    class: 'secret hygiene',
    mistake: 'a .env value read with its double quotes',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-in-quotes',
      words: ['quotes'],
    },
  },
  {
    language: 'php',
    name: 'dotenv-quotes',
    class: 'secret hygiene',
    mistake: 'a .env value read with its double quotes',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-in-quotes',
      words: ['quotes'],
    },
  },
  {
    language: 'node',
    name: 'dotenv-single-quotes',
    class: 'secret hygiene',
    mistake: 'a .env value read with its single quotes',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-in-quotes',
      words: ['quotes'],
    },
  },
  {
    language: 'python',
    name: 'prefix-stripped-base64',
    class: 'secret hygiene',
    mistake: 'the sk_ prefix cut off and the rest base64-decoded',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-without-prefix',
      words: ['sk_', 'base64'],
    },
  },
  {
    language: 'go',
    name: 'prefix-stripped-base64',
    class: 'secret hygiene',
    mistake: 'strings.TrimPrefix(secret, "sk_") then base64.RawURLEncoding.DecodeString',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-without-prefix',
      words: ['sk_', 'base64'],
    },
  },
  {
    language: 'node',
    name: 'prefix-stripped-base64',
    class: 'secret hygiene',
    mistake: "Buffer.from(secret.replace(/^sk_/, ''), 'base64')",
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-without-prefix',
      words: ['sk_', 'base64'],
    },
  },
  {
    language: 'php',
    name: 'hex2bin-failed',
    class: 'secret hygiene',
    mistake: 'hex2bin of a secret that is not hex: false, an empty key',
    expect: { signature: 'authorization', cause: 'key-misused', key: 'empty', words: ['empty'] },
  },
  {
    language: 'go',
    name: 'hex-error-ignored',
    class: 'secret hygiene',
    mistake: 'key, _ := hex.DecodeString(secret): an empty key',
    expect: { signature: 'authorization', cause: 'key-misused', key: 'empty', words: ['empty'] },
  },
  {
    language: 'node',
    name: 'hex-decoded-empty',
    class: 'secret hygiene',
    mistake: "Buffer.from(secret, 'hex') of a secret that is not hex: an empty key",
    expect: { signature: 'authorization', cause: 'key-misused', key: 'empty', words: ['empty'] },
  },
  {
    language: 'python',
    name: 'sha256-of-secret-and-body',
    class: 'secret hygiene',
    mistake: 'sha256(secret + body) instead of an HMAC',
    expect: { signature: 'authorization', cause: 'key-misused', key: 'not-hmac', words: ['HMAC'] },
  },
  {
    language: 'php',
    name: 'sha256-of-secret-and-body',
    class: 'secret hygiene',
    mistake: "hash('sha256', $secret . $body) instead of hash_hmac",
    expect: { signature: 'authorization', cause: 'key-misused', key: 'not-hmac', words: ['HMAC'] },
  },
  {
    language: 'go',
    name: 'sha256-of-body-and-secret',
    class: 'secret hygiene',
    mistake: 'sha256.Sum256(body + secret) instead of an HMAC',
    expect: { signature: 'authorization', cause: 'key-misused', key: 'not-hmac', words: ['HMAC'] },
  },
  {
    language: 'php',
    name: 'hmac-arguments-swapped',
    class: 'secret hygiene',
    mistake: "hash_hmac('sha256', $secret, $body): data and key swapped",
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'message-as-key',
      words: ['swapped'],
    },
  },
  {
    language: 'node',
    name: 'hmac-arguments-swapped',
    class: 'secret hygiene',
    mistake: "createHmac('sha256', body).update(secret)",
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'message-as-key',
      words: ['swapped'],
    },
  },
  {
    language: 'java',
    name: 'public-key-as-hmac-key',
    class: 'secret hygiene',
    mistake: 'the HMAC keyed with the public key',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'public-key',
      words: ['public key'],
    },
  },
  {
    language: 'java',
    name: 'hex-secret-decoded',
    class: 'secret hygiene',
    mistake: 'a hex secret decoded (HexFormat.parseHex) before it keys the HMAC',
    keyPair: 'hex',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-hex-decoded',
      words: ['hex'],
    },
  },
  {
    language: 'node',
    name: 'http-message-signatures-key-base64',
    class: 'secret hygiene',
    mistake: "http-message-signatures' createSigner given Buffer.from(secret, 'base64')",
    expect: {
      signature: 'message-signature',
      cause: 'key-misused',
      key: 'secret-base64-decoded',
      words: ['base64'],
    },
  },

  // The Authorization header's form.
  {
    language: 'python',
    name: 'scheme-word',
    class: 'Authorization form',
    mistake: 'Authorization: HMAC <publicKey>:<signature>',
    seen: 'https://github.com/docker-library/docs/issues/858',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['"HMAC"', 'scheme'],
    },
  },
  {
    language: 'php',
    name: 'scheme-word',
    class: 'Authorization form',
    mistake: 'Authorization: Bearer <publicKey>:<signature>',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['"Bearer"', 'scheme'],
    },
  },
  {
    language: 'go',
    name: 'scheme-word',
    class: 'Authorization form',
    mistake: 'Authorization: HMAC-SHA256 <publicKey>:<signature>',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['"HMAC-SHA256"', 'scheme'],
    },
  },
  {
    language: 'node',
    name: 'basic-authorization',
    class: 'Authorization form',
    mistake: 'Authorization: Basic base64(<publicKey>:<signature>)',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['Basic', 'base64'],
    },
  },
  {
    language: 'php',
    name: 'space-after-colon',
    class: 'Authorization form',
    mistake: 'Authorization: <publicKey>: <signature>',
    expect: { signature: 'authorization', cause: 'authorization-malformed', words: ['space'] },
  },
  {
    language: 'python',
    name: 'signature-with-algorithm-prefix',
    class: 'Authorization form',
    mistake: 'Authorization: <publicKey>:sha256=<signature>, as webhooks write it',
    expect: { signature: 'authorization', cause: 'authorization-malformed', words: ['sha256='] },
  },
  {
    language: 'java',
    name: 'uppercase-hex-signature',
    class: 'Authorization form',
    mistake: 'HexFormat.of().withUpperCase(): the signature in uppercase hex',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['lowercase'],
    },
  },
  {
    language: 'java',
    name: 'base64-signature',
    class: 'Authorization form',
    mistake: 'the signature in base64',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['base64', 'hex'],
    },
  },
  {
    language: 'node',
    name: 'base64-signature',
    class: 'Authorization form',
    mistake: "digest('base64') instead of digest('hex')",
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['base64', 'hex'],
    },
  },

  // The message signature's fields.
  {
    language: 'python',
    name: 'components-unquoted',
    class: 'message-signature fields',
    mistake: 'Signature-Input: sig1=(@method @path content-digest): the names not quoted',
    seen: 'https://github.com/visa/trusted-agent-protocol/pull/21',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'signature-input',
      words: ['quoted'],
    },
  },
  {
    language: 'python',
    name: 'label-mismatch',
    class: 'message-signature fields',
    mistake: 'Signature-Input labelled sig1, Signature labelled sig',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'signature',
      words: ['label', 'sig1'],
      never: ['not a dictionary'],
    },
  },
  {
    language: 'go',
    name: 'signature-without-colons',
    class: 'message-signature fields',
    mistake: 'Signature: sig1=<base64>, without the colons of a byte sequence',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'signature',
      words: ['colons'],
    },
  },
  {
    language: 'php',
    name: 'signature-hex',
    class: 'message-signature fields',
    mistake: 'Signature: sig1=:<hex>:, the MAC in hex between the colons',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'signature',
      words: ['hex', 'base64'],
    },
  },
  {
    language: 'go',
    name: 'keyid-missing',
    class: 'message-signature fields',
    mistake: 'no keyid parameter',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'keyid',
      words: ['keyid'],
    },
  },
  {
    language: 'node',
    name: 'http-message-signatures-default-params',
    class: 'message-signature fields',
    mistake: "http-message-signatures' default parameters: no nonce",
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'nonce',
      words: ['nonce'],
    },
  },
  {
    language: 'python',
    name: 'base-crlf',
    class: 'message-signature fields',
    mistake: 'the signature base joined with CRLF',
    seen: 'https://github.com/arkerone/api-key-auth/issues/2',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      words: ['CRLF'],
    },
  },
  {
    language: 'java',
    name: 'base-with-final-newline',
    class: 'message-signature fields',
    mistake: 'the signature base ends with a newline',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      words: ['newline'],
    },
  },
  {
    language: 'python',
    name: 'content-type-signed-not-sent',
    class: 'message-signature fields',
    mistake: 'content-type covered as application/json, but urllib sent its own Content-Type',
    seen: 'https://github.com/arnemolland/sigv4/pull/18',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'content-type',
      words: ['application/json'],
    },
  },
  {
    language: 'node',
    name: 'content-type-signed-not-sent',
    class: 'message-signature fields',
    mistake: 'content-type covered, but fetch sent text/plain;charset=UTF-8',
    seen: 'https://github.com/bsv-blockchain/ts-sdk/pull/236',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'content-type',
      words: ['application/json'],
    },
  },
  {
    language: 'node',
    name: 'http-message-signatures-authority-localhost',
    class: 'message-signature fields',
    mistake: '@authority signed for localhost, the request sent to 127.0.0.1',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: '@authority',
      words: ['@authority'],
    },
  },

  // Content-Digest written otherwise.
  {
    language: 'python',
    name: 'digest-hex',
    class: 'digest encoding',
    mistake: 'Content-Digest: sha-256=:<hex>:',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'content-digest',
      words: ['hex', 'base64'],
      never: ['not the digest'],
    },
  },
  {
    language: 'python',
    name: 'digest-algorithm-without-dash',
    class: 'digest encoding',
    mistake: 'Content-Digest: sha256=:<base64>:',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'content-digest',
      words: ['sha-256'],
    },
  },
  {
    language: 'go',
    name: 'digest-without-colons',
    class: 'digest encoding',
    mistake: 'Content-Digest: sha-256=<base64>, without the colons',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'content-digest',
      words: ['colons'],
    },
  },
  {
    language: 'php',
    name: 'digest-sha512-named-sha256',
    class: 'digest encoding',
    mistake: "Content-Digest: sha-256=:<base64 of hash('sha512', …)>:",
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'content-digest',
      words: ['SHA-512', 'sha-512'],
    },
  },
  {
    language: 'java',
    name: 'digest-algorithm-uppercase',
    class: 'digest encoding',
    mistake: 'Content-Digest: SHA-256=:<base64>:',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'content-digest',
      words: ['lowercase'],
    },
  },
  {
    language: 'node',
    name: 'digest-legacy-field',
    class: 'digest encoding',
    mistake: 'the RFC 3230 Digest field sent instead of Content-Digest',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'content-digest',
      words: ['Digest', 'Content-Digest'],
    },
  },

  // Time: created in other units, zones or types.
  {
    language: 'node',
    name: 'created-milliseconds',
    class: 'time units',
    mistake: 'created=Date.now(), milliseconds',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'created',
      words: ['milliseconds'],
    },
  },
  {
    language: 'node',
    name: 'http-message-sig-created-milliseconds',
    class: 'time units',
    mistake: "http-message-sig's parameters.created = Date.now()",
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'created',
      words: ['milliseconds'],
    },
  },
  {
    language: 'python',
    name: 'created-float',
    class: 'time units',
    mistake: 'created=time.time(), a float',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'created',
      words: ['whole number'],
    },
  },
  {
    language: 'python',
    name: 'created-local-time',
    class: 'time units',
    mistake: 'calendar.timegm(datetime.now().timetuple()): the local time taken for UTC',
    env: berlin,
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'created',
      words: ['time zone'],
    },
  },
  {
    language: 'java',
    name: 'created-local-time',
    class: 'time units',
    mistake: 'LocalDateTime.now().toEpochSecond(ZoneOffset.UTC): the local time taken for UTC',
    env: berlin,
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'created',
      words: ['time zone'],
    },
  },
  {
    language: 'php',
    name: 'created-iso-time',
    class: 'time units',
    mistake: 'created="2026-…T…+00:00", a date string',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'created',
      words: ['whole number'],
    },
  },

  // What a capture alone cannot tell: the doctor must say it cannot know.
  {
    language: 'python',
    name: 'retry-same-signature',
    class: 'offline limits',
    mistake: 'a retry sent with the first attempt’s headers (the same nonce)',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'nonce',
      words: ['nonce', 'new'],
      doctor: { valid: true, words: ['nonce', ['cannot', 'not know']] },
    },
  },
  {
    language: 'node',
    name: 'retry-same-headers',
    class: 'offline limits',
    mistake: 'a retry sent with the first attempt’s headers (the same nonce)',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'nonce',
      words: ['nonce', 'new'],
      doctor: { valid: true, words: ['nonce', ['cannot', 'not know']] },
    },
  },
  {
    language: 'go',
    name: 'authorization-only',
    class: 'offline limits',
    mistake: 'only Authorization, for a key pair that requires a message signature',
    keyPair: 'required',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'signature-input',
      words: ['requires'],
      doctor: { valid: true, words: ['--require-message-signature'] },
    },
  },

  // A secret, or a value that could be one, where the public key goes: never repeated back.
  {
    language: 'python',
    name: 'secret-in-keyid',
    class: 'secret echo',
    mistake: 'keyid="<the secret key>"',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'keyid',
      words: ['keyid', 'secret key'],
    },
  },
  {
    language: 'node',
    name: 'http-message-signatures-secret-as-keyid',
    class: 'secret echo',
    mistake: "http-message-signatures' createSigner(secret, 'hmac-sha256', secret)",
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'keyid',
      words: ['keyid', 'secret key'],
    },
  },
  {
    language: 'go',
    name: 'keyid-institution-name',
    class: 'secret echo',
    mistake: 'keyid="acme-microfinance", a name of the integrator’s',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'keyid',
      words: ['keyid', 'public key'],
      never: ['acme-microfinance'],
    },
  },
  {
    language: 'php',
    name: 'secret-as-public-key',
    class: 'secret echo',
    mistake: 'Authorization: <the secret key>:<signature>',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-as-public-key',
      words: ['secret key', 'public key'],
      sandbox: 'plain-401',
    },
  },

  // More of each class, written as the others were, after the diagnosis was built.
  {
    language: 'python',
    name: 'signed-pretty-sorted',
    class: 're-serialization',
    mistake: 'signed json.dumps(sort_keys=True, indent=2), sent compact',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['pretty', 'sorted'] },
  },
  {
    language: 'go',
    name: 'indented-with-tabs-sent',
    class: 're-serialization',
    mistake: 'signed json.Marshal, sent json.MarshalIndent(v, "", "\\t")',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['compact'] },
  },
  {
    language: 'python',
    name: 'form-encoded-body',
    class: 'other bytes signed',
    mistake: 'signed json.dumps(payload), sent urllib.parse.urlencode(payload)',
    expect: { signature: 'authorization', cause: 'body-bytes-differ', words: ['form-encoded'] },
    undiagnosed:
      "the JSON signed cannot be rebuilt from a form's fields (their types are lost); the diagnosis says, as no-known-mistake, that the body is form-encoded, not JSON",
  },
  {
    language: 'go',
    name: 'secret-with-leading-space',
    class: 'secret hygiene',
    mistake: 'the secret read after "key: " with its space',
    expect: {
      signature: 'authorization',
      cause: 'key-misused',
      key: 'secret-with-whitespace',
      words: ['space'],
    },
  },
  {
    language: 'python',
    name: 'space-instead-of-colon',
    class: 'Authorization form',
    mistake: 'Authorization: <publicKey> <signature>',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['a space', 'colon'],
    },
  },
  {
    language: 'python',
    name: 'hmac-sha512',
    class: 'Authorization form',
    mistake: 'hmac.new(key, body, hashlib.sha512): HMAC-SHA512',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['SHA512', 'SHA-256'],
    },
  },
  {
    language: 'php',
    name: 'md5-signature',
    class: 'Authorization form',
    mistake: 'md5($secret . $body)',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['MD5', 'HMAC-SHA256'],
    },
  },
  {
    language: 'java',
    name: 'signature-scheme-word',
    class: 'Authorization form',
    mistake: 'Authorization: Signature <publicKey>:<signature>',
    expect: {
      signature: 'authorization',
      cause: 'authorization-malformed',
      words: ['"Signature"', 'scheme'],
    },
  },
  {
    language: 'java',
    name: 'content-type-with-charset-signed',
    class: 'message-signature fields',
    mistake: 'content-type signed as application/json; charset=UTF-8, sent as application/json',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'content-type',
      words: ['charset=UTF-8'],
    },
  },
  {
    language: 'node',
    name: 'base-lines-from-a-map',
    class: 'message-signature fields',
    mistake: "the signature base's lines written in a map's order",
    expect: { signature: 'message-signature', cause: 'signature-base-differs', words: ['order'] },
  },
  {
    language: 'php',
    name: 'created-microtime',
    class: 'time units',
    mistake: 'created=microtime(true), a float',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'created',
      words: ['whole number'],
    },
  },
  {
    language: 'go',
    name: 'created-nanoseconds',
    class: 'time units',
    mistake: 'created=time.Now().UnixNano()',
    expect: {
      signature: 'message-signature',
      cause: 'signature-base-differs',
      component: 'created',
      words: ['nanoseconds'],
    },
  },
];

/** `language/name`, and the hop when there is one. */
export function caseId(mistake: Pick<MistakeCase, 'language' | 'name' | 'hop'>): string {
  return `${mistake.language}/${mistake.name}${mistake.hop ? ` via ${mistake.hop}` : ''}`;
}
