import { type MessageSignatureHeaders, signMessageSync } from '@institution-api/signing/node';
import type { Credentials } from './authorization.js';
import type { MessageSignatureRecipe } from './exchange.js';

export type { MessageSignatureRecipe } from './exchange.js';

/** The covered components `@institution-api/signing` signs by default for a request with a body. */
export const DEFAULT_COMPONENTS = ['@method', '@path', 'content-digest'] as const;

/** The fields a message signature puts on a request, lower-case names. */
export const MESSAGE_SIGNATURE_FIELDS = ['content-digest', 'signature-input', 'signature'] as const;

/** The message-signature fields a recipe gives for a request to `baseUrl`, none for `none`. */
export function messageSignatureFields(
  recipe: MessageSignatureRecipe,
  request: { method: string; baseUrl: string; target: string; body?: Uint8Array },
  credentials: Credentials,
  now = Date.now(),
): Partial<MessageSignatureHeaders> {
  switch (recipe.kind) {
    case 'none':
      return {};
    case 'same-as':
      return Object.fromEntries(
        MESSAGE_SIGNATURE_FIELDS.flatMap((name) => {
          const value = recipe.request.headers[name];
          return value === undefined ? [] : [[name, value]];
        }),
      );
    case 'signed': {
      const credential = recipe.as === 'other' ? credentials.other : credentials.main;
      if (!credential) throw new Error('The second institution has no keys.');
      const body = recipe.body ?? request.body;
      return signMessageSync(
        {
          method: request.method,
          url: `${request.baseUrl}${recipe.target ?? request.target}`,
          ...(body ? { body } : {}),
        },
        {
          keyId: credential.publicKey,
          secretKey: credential.secretKey,
          created: Math.floor(now / 1000) + (recipe.createdOffset ?? 0),
          ...(recipe.components ? { components: recipe.components } : {}),
        },
      );
    }
  }
}
