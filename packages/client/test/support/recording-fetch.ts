import type { FetchLike } from '../../src/resilient-fetch.js';

/**
 * An injected `fetch` that records what the client would put on the wire and answers from a
 * queue of canned responses, so unit tests need neither sockets nor global stubs.
 */
export interface SentRequest {
  method: string;
  url: string;
  headers: Headers;
  /** The exact body bytes sent. */
  bytes: Uint8Array;
  /** The same bytes as UTF-8 text. */
  text: string;
  /** The attempt's signal, passed in `init` as to the standard `fetch`. */
  signal: AbortSignal | undefined;
}

/**
 * What a call of an injected `fetch` sends, as a `Request`: the client passes a URL and an init
 * (`createUser`/`updateUser`) or a `Request` (`raw`), as to the standard `fetch`. A `Request`
 * is cloned, so the caller can still send it.
 */
export function requestOf(input: string | Request, init?: RequestInit): Request {
  return typeof input === 'string' ? new Request(input, init) : input.clone();
}

export function recordingFetch(...answers: (() => Response)[]) {
  const sent: SentRequest[] = [];
  const fetch: FetchLike = async (input, init) => {
    const request = requestOf(input, init);
    const bytes = new Uint8Array(await request.arrayBuffer());
    sent.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      bytes,
      text: new TextDecoder().decode(bytes),
      signal: init.signal,
    });
    const answer = answers[Math.min(sent.length, answers.length) - 1];
    if (answer === undefined) throw new Error('recordingFetch: no answer queued');
    return answer();
  };
  return { fetch, sent };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  return () =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': type, ...headers } });
}
