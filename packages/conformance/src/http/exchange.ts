import type { Operation } from '../spec/contract.js';
import type { AuthorizationRecipe, Institution } from './authorization.js';

/**
 * How a request's RFC 9421 message signature (`Signature-Input`, `Signature`, `Content-Digest`;
 * the spec's `InstitutionSignature` scheme) is made, as data, so a reproduction makes it again at
 * replay time from the environment, as it does the Authorization header:
 *
 * - `none`: no message-signature fields;
 * - `signed`: the institution's message signature, made when the request is sent (a fresh
 *   `created` and nonce), of the request as sent unless told otherwise: `createdOffset` seconds
 *   added to `created` (a stale one), other `components`, or signed for another `target` or
 *   over other `body` bytes than those sent (a path or a body changed under the signature);
 * - `same-as`: exactly the fields an earlier request carried (a replay).
 */
export type MessageSignatureRecipe =
  | { kind: 'none' }
  | {
      kind: 'signed';
      as: Institution;
      createdOffset?: number;
      components?: readonly string[];
      target?: string;
      body?: Uint8Array<ArrayBuffer>;
    }
  | { kind: 'same-as'; request: SentRequest };

/** A request exactly as sent: the body's bytes are what was signed (or deliberately not). */
export interface SentRequest {
  method: string;
  /** The full URL. */
  url: string;
  /** The path and query, as the reproduction writes it after `$INSTITUTION_API_URL`. */
  target: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
  /** How its Authorization header was made, so a reproduction can make it again. */
  authorization: AuthorizationRecipe;
  /** How its message signature was made (none when absent: the proxy's requests). */
  messageSignature?: MessageSignatureRecipe;
  /**
   * A path parameter whose value (`value`) an earlier request answered, as its `property`: the
   * request at index `exchange` of the same sequence, or `producer` (a request made before the
   * sequence, to have a resource to work on). The reproduction sends that request first and reads
   * the value from its answer instead of writing it in.
   */
  idFrom?: {
    parameter: string;
    property: string;
    value: string;
    exchange: number;
    producer?: Exchange;
  };
}

/** An answer as received. */
export interface Answer {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: Uint8Array;
  /** The body as UTF-8 text. */
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
}

/** One request of an operation and what came back: an answer, or the network error instead. */
export interface Exchange {
  operation: Operation;
  request: SentRequest;
  answer?: Answer;
  /** Why no answer came (connection refused, reset, timed out). */
  error?: string;
}

/** Reads an answer's body as text and, when it parses, as JSON. */
export function answerOf(
  status: number,
  headers: Record<string, string>,
  body: Uint8Array,
): Answer {
  const text = new TextDecoder().decode(body);
  const answer: Answer = { status, headers, body, text };
  try {
    if (text.length > 0) answer.json = JSON.parse(text);
  } catch {
    // not JSON: the content-type and schema checks say so
  }
  return answer;
}
