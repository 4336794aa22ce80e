/**
 * What every consumer program writes beside its generated client, as an integrator would: the
 * signature (spec: securitySchemes InstitutionSignature, `Authorization: <publicKey>:<signature>`,
 * HMAC-SHA256 in lowercase hex of the exact body bytes), a customer no run has registered yet,
 * and the report the test reads (one JSON line on stdout).
 */
import { createHmac, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The consumer's configuration, from its environment (as the spec's code samples read it). */
export const env = {
  baseUrl: required('INSTITUTION_API_URL'),
  publicKey: required('INSTITUTION_PUBLIC_KEY'),
  secretKey: required('INSTITUTION_SECRET_KEY'),
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** The body's bytes, signed: `Authorization: <publicKey>:<hex HMAC-SHA256>`. */
export function authorization(body: Uint8Array | string): string {
  const signature = createHmac('sha256', env.secretKey).update(body).digest('hex');
  return `${env.publicKey}:${signature}`;
}

/**
 * A `fetch` that signs the exact bytes it sends. Generated clients serialize the body themselves,
 * so the signature is made from the request they built, never from a second serialization.
 */
export const signedFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  const body = new Uint8Array(await request.clone().arrayBuffer());
  const headers = new Headers(request.headers);
  headers.set('Authorization', authorization(body));
  return fetch(request.url, {
    method: request.method,
    headers,
    ...(body.byteLength > 0 ? { body } : {}),
  });
};

/** Identity fields no earlier run used (the service recognizes a customer by card and mobile). */
export function freshCustomer() {
  const digits = (count: number) =>
    Array.from({ length: count }, () => String(randomInt(10))).join('');
  const card = digits(9);
  return {
    ghanaCardNumber: `GHA-${card}-${digits(1)}`,
    // 024 is an MTN prefix that the spec's Ghana mobile pattern accepts.
    mobileNumber: `+23324${digits(7)}`,
    email: `consumer.${card}@example.com`,
  };
}

/** An example of the spec, with the component schema its media type names. */
export interface SpecExample {
  operationId: string;
  /** `request`, or the response's status (`201`). */
  where: string;
  name: string;
  schema: string;
  value: unknown;
}

/** The examples the test took from the bundle (`examples.json` beside the program). */
export function specExamples(): SpecExample[] {
  return JSON.parse(readFileSync(new URL('../examples.json', import.meta.url), 'utf8'));
}

/** `parse` of a zod schema, as far as the checks below use it. */
interface Parser {
  safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } };
}

const isParser = (value: unknown): value is Parser =>
  typeof (value as Partial<Parser> | undefined)?.safeParse === 'function';

/**
 * Each example through the zod schema `schemaFor` picks for it (by the generator's naming): the
 * count, and those it rejects with zod's issues or that no schema was generated for.
 */
export function checkExamples(schemaFor: (example: SpecExample) => unknown) {
  const results = specExamples().map((example) => {
    const schema = schemaFor(example);
    const label = `${example.operationId} ${example.where} ${example.name} (${example.schema})`;
    if (!isParser(schema)) return { label, accepted: false, issues: ['no zod schema generated'] };
    const result = schema.safeParse(example.value);
    return { label, accepted: result.success, issues: result.error?.issues ?? [] };
  });
  return {
    checked: results.length,
    rejected: results.filter((result) => !result.accepted),
  };
}

/** The one line the test reads. */
export function report(result: Record<string, unknown>): void {
  console.log(JSON.stringify(result));
}
