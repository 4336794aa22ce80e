// Mistakes integrators make when they sign a create in Node (fetch, node:crypto,
// node:http, and the RFC 9421 libraries http-message-signatures and
// http-message-sig), one function each, run as `node mistakes.mjs <case>`.
// Each is the ordinary code a Node developer writes; the one line that goes
// wrong is marked "MISTAKE". The corpus (../../corpus.ts) says what the
// sandbox and the doctor must answer.
//
// Environment: API_URL, PUBLIC_KEY, SECRET_KEY, USER_JSON (a user as JSON),
// DOTENV_FILE (a .env file with the keys in double quotes), DOTENV_CRLF_FILE
// (unquoted, saved with Windows line ends), DOTENV_SINGLE_QUOTED_FILE.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createSignature } from 'http-message-sig';
import { createSigner, httpbis } from 'http-message-signatures';

const url = `${process.env.API_URL}/api/v1/external/users`;
const publicKey = process.env.PUBLIC_KEY;
const secretKey = process.env.SECRET_KEY;
const user = () => JSON.parse(process.env.USER_JSON);

const hmacHex = (key, message) => createHmac('sha256', key).update(message).digest('hex');

async function post(body, headers) {
  const response = await fetch(url, { method: 'POST', headers, body });
  return response.status;
}

function signedHeaders(body, signature = hmacHex(secretKey, body)) {
  return { 'content-type': 'application/json', authorization: `${publicKey}:${signature}` };
}

const contentDigest = (body) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
const nonce = () => randomBytes(16).toString('base64url');

/** Content-Digest, Signature-Input and Signature by hand, right unless told. */
function messageSignature(body, { created = Math.floor(Date.now() / 1000), digest } = {}) {
  const contentDigestValue = digest ?? contentDigest(body);
  const params =
    `("@method" "@path" "content-digest");created=${created};nonce="${nonce()}"` +
    `;keyid="${publicKey}";alg="hmac-sha256"`;
  const base = [
    '"@method": POST',
    `"@path": ${new URL(url).pathname}`,
    `"content-digest": ${contentDigestValue}`,
    `"@signature-params": ${params}`,
  ].join('\n');
  const mac = createHmac('sha256', secretKey).update(base).digest('base64');
  return {
    'content-digest': contentDigestValue,
    'signature-input': `sig1=${params}`,
    signature: `sig1=:${mac}:`,
  };
}

/** Signs with http-message-signatures (RFC 9421), as its README shows. */
async function withHttpMessageSignatures(
  body,
  { key = secretKey, keyId = publicKey, target = url, fields, params } = {},
) {
  const signed = await httpbis.signMessage(
    {
      key: createSigner(key, 'hmac-sha256', keyId),
      fields: fields ?? ['@method', '@path', 'content-digest'],
      params: params ?? ['keyid', 'alg', 'created', 'nonce'],
      paramValues: { nonce: nonce() },
    },
    {
      method: 'POST',
      url: target,
      headers: { ...signedHeaders(body), 'content-digest': contentDigest(body) },
    },
  );
  return signed.headers;
}

/** Signs with http-message-sig (RFC 9421), as its README shows. */
async function withHttpMessageSig(body, parameters = {}) {
  const headers = { ...signedHeaders(body), 'content-digest': contentDigest(body) };
  const { signature, signatureInput } = await createSignature(
    {
      kind: 'request',
      method: 'POST',
      targetUri: url,
      fields: Object.entries(headers).map(([name, value]) => ({ name, value })),
    },
    {
      label: 'sig1',
      components: ['@method', '@path', 'content-digest'],
      parameters: {
        created: Math.floor(Date.now() / 1000),
        nonce: nonce(),
        keyid: publicKey,
        alg: 'hmac-sha256',
        ...parameters,
      },
      signer: {
        algorithm: 'hmac-sha256',
        sign: (data) => createHmac('sha256', secretKey).update(data).digest(),
      },
    },
  );
  return { ...headers, signature, 'signature-input': signatureInput };
}

/** The .env file's values, as a hand-written parser reads them. */
function dotenv(file) {
  const values = {};
  for (const line of readFileSync(file).toString().split('\n')) {
    const [name, ...rest] = line.split('=');
    if (rest.length > 0) values[name] = rest.join('=');
  }
  return values;
}

const cases = {
  async control() {
    const body = JSON.stringify(user());
    return post(body, { ...signedHeaders(body), ...messageSignature(body) });
  },
  async 'http-message-signatures-control'() {
    const body = JSON.stringify(user());
    return post(body, await withHttpMessageSignatures(body));
  },
  async 'http-message-sig-control'() {
    const body = JSON.stringify(user());
    return post(body, await withHttpMessageSig(body));
  },
  async 'stringified-twice'() {
    const body = JSON.stringify(user());
    const headers = signedHeaders(body);
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) }); // MISTAKE
    return response.status;
  },
  async 'object-in-template'() {
    const payload = user();
    const signature = hmacHex(secretKey, `${payload}`); // MISTAKE: "[object Object]"
    const body = JSON.stringify(payload);
    return post(body, signedHeaders(body, signature));
  },
  async 'empty-body-signed'() {
    let body = '';
    const signature = hmacHex(secretKey, body); // MISTAKE: before the body is set
    body = JSON.stringify(user());
    return post(body, signedHeaders(body, signature));
  },
  async 'pretty-sent'() {
    const payload = user();
    const signature = hmacHex(secretKey, JSON.stringify(payload));
    const body = JSON.stringify(payload, null, 2); // MISTAKE
    return post(body, signedHeaders(body, signature));
  },
  async 'dotenv-crlf'() {
    const secret = dotenv(process.env.DOTENV_CRLF_FILE).INSTITUTION_SECRET_KEY; // MISTAKE: "\r" kept
    const body = JSON.stringify(user());
    return post(body, signedHeaders(body, hmacHex(secret, body)));
  },
  async 'dotenv-single-quotes'() {
    const secret = dotenv(process.env.DOTENV_SINGLE_QUOTED_FILE).INSTITUTION_SECRET_KEY; // MISTAKE
    const body = JSON.stringify(user());
    return post(body, signedHeaders(body, hmacHex(secret, body)));
  },
  async 'prefix-stripped-base64'() {
    const key = Buffer.from(secretKey.replace(/^sk_/, ''), 'base64'); // MISTAKE
    const body = JSON.stringify(user());
    return post(body, signedHeaders(body, hmacHex(key, body)));
  },
  async 'hex-decoded-empty'() {
    const key = Buffer.from(secretKey, 'hex'); // MISTAKE: not hex: empty
    const body = JSON.stringify(user());
    return post(body, signedHeaders(body, hmacHex(key, body)));
  },
  async 'hmac-arguments-swapped'() {
    const body = JSON.stringify(user());
    const signature = createHmac('sha256', body).update(secretKey).digest('hex'); // MISTAKE
    return post(body, signedHeaders(body, signature));
  },
  async 'base64-signature'() {
    const body = JSON.stringify(user());
    const signature = createHmac('sha256', secretKey).update(body).digest('base64'); // MISTAKE
    return post(body, signedHeaders(body, signature));
  },
  async 'basic-authorization'() {
    const body = JSON.stringify(user());
    const credentials = Buffer.from(`${publicKey}:${hmacHex(secretKey, body)}`).toString('base64');
    return post(body, {
      'content-type': 'application/json',
      authorization: `Basic ${credentials}`,
    }); // MISTAKE
  },
  async 'latin1-sent'() {
    const body = JSON.stringify(user());
    const headers = { ...signedHeaders(body), 'content-length': Buffer.byteLength(body, 'latin1') };
    return new Promise((resolve, reject) => {
      const sent = request(url, { method: 'POST', headers }, (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      sent.on('error', reject);
      sent.end(body, 'latin1'); // MISTAKE
    });
  },
  async 'created-milliseconds'() {
    const body = JSON.stringify(user());
    return post(body, {
      ...signedHeaders(body),
      ...messageSignature(body, { created: Date.now() }),
    }); // MISTAKE
  },
  async 'http-message-sig-created-milliseconds'() {
    const body = JSON.stringify(user());
    return post(body, await withHttpMessageSig(body, { created: Date.now() })); // MISTAKE
  },
  async 'http-message-signatures-default-params'() {
    const body = JSON.stringify(user());
    return post(
      body,
      await withHttpMessageSignatures(body, { params: ['keyid', 'alg', 'created', 'expires'] }),
    ); // MISTAKE: no nonce
  },
  async 'http-message-signatures-key-base64'() {
    const body = JSON.stringify(user());
    return post(
      body,
      await withHttpMessageSignatures(body, { key: Buffer.from(secretKey, 'base64') }),
    ); // MISTAKE
  },
  async 'http-message-signatures-secret-as-keyid'() {
    const body = JSON.stringify(user());
    return post(body, await withHttpMessageSignatures(body, { keyId: secretKey })); // MISTAKE
  },
  async 'http-message-signatures-authority-localhost'() {
    const body = JSON.stringify(user());
    const headers = await withHttpMessageSignatures(body, {
      fields: ['@method', '@authority', '@path', 'content-digest'],
      target: url.replace('127.0.0.1', 'localhost'), // MISTAKE: signed for another host name
    });
    return post(body, headers);
  },
  async 'content-type-signed-not-sent'() {
    const body = JSON.stringify(user());
    const headers = await withHttpMessageSignatures(body, {
      fields: ['@method', '@path', 'content-type', 'content-digest'],
    });
    delete headers['content-type']; // MISTAKE: fetch then sends text/plain;charset=UTF-8
    return post(body, headers);
  },
  async 'digest-legacy-field'() {
    const body = JSON.stringify(user());
    const headers = { ...signedHeaders(body), ...messageSignature(body) };
    headers.digest = `SHA-256=${createHash('sha256').update(body).digest('base64')}`; // MISTAKE
    delete headers['content-digest'];
    return post(body, headers);
  },
  async 'base-lines-from-a-map'() {
    const body = JSON.stringify(user());
    const digestValue = contentDigest(body);
    const components = {
      '"content-digest"': digestValue,
      '"@method"': 'POST',
      '"@path"': new URL(url).pathname,
    };
    const params =
      `("@method" "@path" "content-digest");created=${Math.floor(Date.now() / 1000)};nonce="${nonce()}"` +
      `;keyid="${publicKey}";alg="hmac-sha256"`;
    // MISTAKE: the lines in the map's order, not in Signature-Input's.
    const base = [
      ...Object.entries(components).map(([name, value]) => `${name}: ${value}`),
      `"@signature-params": ${params}`,
    ].join('\n');
    const mac = createHmac('sha256', secretKey).update(base).digest('base64');
    return post(body, {
      ...signedHeaders(body),
      'content-digest': digestValue,
      'signature-input': `sig1=${params}`,
      signature: `sig1=:${mac}:`,
    });
  },
  async 'retry-same-headers'() {
    const body = JSON.stringify(user());
    const headers = { ...signedHeaders(body), ...messageSignature(body) };
    await post(body, headers);
    return post(body, headers); // MISTAKE: a retry with the same nonce
  },
};

console.log(await cases[process.argv[2]]());
