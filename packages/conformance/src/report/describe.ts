import type { SignatureOptions } from '@institution-api/signing';
import type { AuthorizationRecipe } from '../http/authorization.js';
import type { Exchange } from '../http/exchange.js';
import type { MessageSignatureRecipe } from '../http/message-signature.js';

/** How a request's message signature was made, in words (its MAC is never printed either). */
export function describeMessageSignature(recipe: MessageSignatureRecipe): string {
  switch (recipe.kind) {
    case 'none':
      return '(none)';
    case 'same-as':
      return `<the very same as the earlier ${recipe.request.method} ${recipe.request.target}>`;
    case 'signed': {
      const changes = [
        recipe.createdOffset ? `created ${-recipe.createdOffset} s before it was sent` : '',
        recipe.components ? `covering ${recipe.components.join(' ')}` : '',
        recipe.target ? `made for ${recipe.target}` : '',
        recipe.body ? 'over other body bytes than those sent' : '',
      ].filter((text) => text !== '');
      return `<HMAC-SHA256 base64 of the signature base, by the ${recipe.as === 'other' ? 'second' : 'first'} institution${changes.length > 0 ? `; ${changes.join(', ')}` : ''}>`;
    }
  }
}

/**
 * How a request's Authorization header was made, in words. Reports never print the header's
 * value: a signed request can be replayed by whoever reads it (the spec's "Replay").
 */
export function describeAuthorization(
  recipe: AuthorizationRecipe,
  { algorithm = 'sha256', encoding = 'hex' }: SignatureOptions,
): string {
  const mac = `HMAC-${algorithm.toUpperCase()} ${encoding}`;
  switch (recipe.kind) {
    case 'signed':
      return `<${recipe.as === 'other' ? 'second' : 'first'} institution's public key>:<${mac} of the body>`;
    case 'none':
      return '(none)';
    case 'literal':
      return recipe.value;
    case 'unknown-key':
      return `${recipe.publicKey}:<${mac} of the body with the first institution's secret>`;
    case 'wrong-secret':
      return `<first institution's public key>:<${mac} of the body with the secret "${recipe.secret}">`;
    case 'signed-text':
      return `<first institution's public key>:<${mac} of other bytes: ${new TextDecoder().decode(recipe.text).slice(0, 80)}>`;
    case 'truncated':
      return `<first institution's public key>:<${mac} of the body, its last character cut>`;
  }
}

/** A request as data for the reports: method, target, headers (Authorization described), body. */
export function requestRecord(exchange: Exchange, signature: SignatureOptions) {
  const { request } = exchange;
  const headers = { ...request.headers };
  if ('authorization' in headers || request.authorization.kind !== 'none') {
    headers.authorization = describeAuthorization(request.authorization, signature);
  }
  if (headers.signature !== undefined && request.messageSignature) {
    headers.signature = describeMessageSignature(request.messageSignature);
  }
  return {
    method: request.method,
    target: request.target,
    headers,
    body: new TextDecoder().decode(request.body ?? new Uint8Array()),
    status: exchange.answer?.status ?? null,
  };
}
