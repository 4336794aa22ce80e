import { formatAuthorization, type SignatureOptions } from '@institution-api/signing';
import { signSync } from '@institution-api/signing/node';

/** An institution's key pair (the spec's `InstitutionSignature` security scheme). */
export interface Credential {
  publicKey: string;
  secretKey: string;
}

/** The first institution's keys, and the second's when the run has them. */
export interface Credentials {
  main: Credential;
  other?: Credential;
}

/** Which institution a request is sent as. */
export type Institution = 'main' | 'other';

/**
 * How a request's `Authorization` header is made, as data, so the same header can be rebuilt by a
 * reproduction at replay time from the environment (never by printing a secret):
 *
 * - `signed`: the institution's public key and the HMAC of the exact body bytes sent;
 * - `none`: no header; `literal`: a fixed malformed value (it carries no secret);
 * - `unknown-key`: a public key no institution has, with the first institution's signature;
 * - `wrong-secret`: the first institution's public key, signed with a made-up secret;
 * - `signed-text`: the first institution's signature over other bytes than the body sent
 *   (the body changed after signing, or its re-serialized form);
 * - `truncated`: the first institution's signature without its last character.
 */
export type AuthorizationRecipe =
  | { kind: 'signed'; as: Institution }
  | { kind: 'none' }
  | { kind: 'literal'; value: string }
  | { kind: 'unknown-key'; publicKey: string }
  | { kind: 'wrong-secret'; secret: string }
  | { kind: 'signed-text'; text: Uint8Array }
  | { kind: 'truncated' };

/** The header value a recipe gives for `body`, or undefined for no header. */
export function authorizationValue(
  recipe: AuthorizationRecipe,
  body: Uint8Array,
  credentials: Credentials,
  signature: SignatureOptions,
): string | undefined {
  const { main } = credentials;
  const sign = (bytes: Uint8Array, secret: string) => signSync(bytes, secret, signature);
  switch (recipe.kind) {
    case 'signed': {
      const credential = recipe.as === 'other' ? credentials.other : main;
      if (!credential) throw new Error('The second institution has no keys.');
      return formatAuthorization(credential, sign(body, credential.secretKey));
    }
    case 'none':
      return undefined;
    case 'literal':
      return recipe.value;
    case 'unknown-key':
      return formatAuthorization(recipe.publicKey, sign(body, main.secretKey));
    case 'wrong-secret':
      return formatAuthorization(main, sign(body, recipe.secret));
    case 'signed-text':
      return formatAuthorization(main, sign(recipe.text, main.secretKey));
    case 'truncated':
      return formatAuthorization(main, sign(body, main.secretKey).slice(0, -1));
  }
}
