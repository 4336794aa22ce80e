/**
 * A schema the generator cannot honour: a keyword it does not know, or a combination it cannot
 * satisfy. Raised while the arbitraries are built, before any request is sent, so a spec that
 * grows a new keyword fails loudly instead of producing traffic that silently ignores it.
 */
export class UnsupportedSchemaError extends Error {
  constructor(
    readonly pointer: string,
    detail: string,
  ) {
    super(`The generator cannot honour the schema at ${pointer}: ${detail}.`);
  }
}
