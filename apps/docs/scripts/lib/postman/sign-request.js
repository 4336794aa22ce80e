// Postman's collection-level pre-request script: Postman and Newman run it before every request,
// before the request's own scripts. The build puts `freshCustomerFor` before this text: the names
// of the requests that register a new customer.

// A customer no run has registered yet, for the requests named in `freshCustomerFor`. The service
// recognizes a customer by the Ghana Card number (then the mobile number), and an email belongs
// to one user (spec: createUser): each such request gets three fresh values, which the bodies
// read as {{ghanaCardNumber}}, {{mobileNumber}} and {{email}}, and later requests reuse. This
// runs here, before signing, because the signature covers the body these values go into.
function freshCustomer() {
  const digits = (count) =>
    Array.from({ length: count }, () => Math.floor(Math.random() * 10)).join('');
  const card = digits(9);
  // GhanaCardNumber: GHA-, 9 digits, -, 1 check digit.
  pm.collectionVariables.set('ghanaCardNumber', `GHA-${card}-${digits(1)}`);
  // GhanaMobileNumber: +233 and a national number of Ghana's mobile pattern (24: MTN).
  pm.collectionVariables.set('mobileNumber', `+23324${digits(7)}`);
  pm.collectionVariables.set('email', `postman.${card}.${Date.now()}@example.com`);
}

/** The exact text the request sends: its raw body with {{variables}} resolved, as Postman does. */
function bytesToSign(request) {
  // A GET or HEAD would sign its query, JSON-stringified (spec: Assumptions, "Signature").
  if (request.method === 'GET' || request.method === 'HEAD') {
    const query = {};
    request.url.query.each((parameter) => {
      if (!parameter.disabled) query[parameter.key] = pm.variables.replaceIn(parameter.value);
    });
    return JSON.stringify(query);
  }
  const raw = request.body && request.body.mode === 'raw' ? request.body.raw : '';
  return pm.variables.replaceIn(raw || '');
}

// The spec's InstitutionSignature scheme: Authorization: <publicKey>:<signature>, the signature
// being the HMAC-SHA256, in lowercase hex, of the exact bytes of the body, keyed with the secret
// key's UTF-8 bytes. So no signing proxy is needed.
function signAuthorization(request, text) {
  const publicKey = pm.variables.get('publicKey');
  const secretKey = pm.variables.get('secretKey');
  if (!publicKey || !secretKey) {
    throw new Error(
      "Set the variables publicKey and secretKey to your institution's keys (npm start prints a demo pair).",
    );
  }
  const signature = cryptoJs
    .HmacSHA256(cryptoJs.enc.Utf8.parse(text), cryptoJs.enc.Utf8.parse(secretKey))
    .toString(cryptoJs.enc.Hex);
  request.headers.upsert({ key: 'Authorization', value: `${publicKey}:${signature}` });
}

// The spec's MessageSignature scheme (RFC 9421), beside the Authorization header: Content-Digest
// (the body's SHA-256), and a signature over "@method", "@path" and "content-digest" with
// `created`, a fresh `nonce` and `keyid`, HMAC-SHA256 keyed with the same secret. A replayed or
// re-pathed request then fails on a key pair that requires message signatures.
function signMessage(request, text) {
  const publicKey = pm.variables.get('publicKey');
  const secretKey = pm.variables.get('secretKey');
  // @path: the path the request goes to, {{variables}} resolved, without the query.
  const resolved = pm.variables.replaceIn(request.url.toString());
  const path = resolved.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0] || '/';
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  const base64 = (words) => words.toString(cryptoJs.enc.Base64);
  const nonce = base64(cryptoJs.lib.WordArray.random(16))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  const digest = `sha-256=:${base64(cryptoJs.SHA256(cryptoJs.enc.Utf8.parse(text)))}:`;
  const components = hasBody ? '"@method" "@path" "content-digest"' : '"@method" "@path"';
  const params = `(${components});created=${Math.floor(Date.now() / 1000)};nonce="${nonce}";keyid="${publicKey}";alg="hmac-sha256"`;
  const lines = [`"@method": ${request.method}`, `"@path": ${path}`];
  if (hasBody) lines.push(`"content-digest": ${digest}`);
  lines.push(`"@signature-params": ${params}`);
  const signature = base64(
    cryptoJs.HmacSHA256(
      cryptoJs.enc.Utf8.parse(lines.join('\n')),
      cryptoJs.enc.Utf8.parse(secretKey),
    ),
  );
  if (hasBody) request.headers.upsert({ key: 'Content-Digest', value: digest });
  request.headers.upsert({ key: 'Signature-Input', value: `sig1=${params}` });
  request.headers.upsert({ key: 'Signature', value: `sig1=:${signature}:` });
}

// Postman's sandbox provides crypto-js (HMAC-SHA256, hex) to scripts.
const cryptoJs = require('crypto-js');

if (freshCustomerFor.includes(pm.info.requestName)) freshCustomer();
// Each security scheme the request carries signs the same bytes.
const text = bytesToSign(pm.request);
signAuthorization(pm.request, text);
signMessage(pm.request, text);
