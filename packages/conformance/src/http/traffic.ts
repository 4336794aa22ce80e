import type { SignatureOptions } from '@institution-api/signing';
import type { Operation } from '../spec/contract.js';
import { type AuthorizationRecipe, authorizationValue, type Credentials } from './authorization.js';
import { answerOf, type Exchange, type SentRequest } from './exchange.js';
import { type MessageSignatureRecipe, messageSignatureFields } from './message-signature.js';

/** The limits that keep a run safe against a real service (issue: "Safe against a real service"). */
export interface TrafficLimits {
  /** Requests at most, retries included. */
  maxRequests: number;
  /** Requests per second at most; 0 for no pacing (one request in flight at a time, always). */
  rate: number;
  /** When the run must stop sending (epoch milliseconds). */
  deadline: number;
}

/** What one request is: the rest (URL, headers, signature) is the traffic's business. */
export interface RequestSpec {
  method: string;
  /** Path and query, e.g. `/api/v1/external/users/3f0c…`. */
  target: string;
  body?: Uint8Array<ArrayBuffer>;
  authorization: AuthorizationRecipe;
  /**
   * The message signature; by default the institution's, made as the request is sent, whenever
   * its Authorization header is a valid one (`signed`): the run signs both ways, as clients do.
   */
  messageSignature?: MessageSignatureRecipe;
  /** The Content-Type header; `application/json` unless given, none when null. */
  contentType?: string | null;
  idFrom?: SentRequest['idFrom'];
}

/** Thrown instead of sending once the budget, the time or the service is exhausted. */
export class BudgetExhausted extends Error {}

/** How many network failures in a row mean the service stopped answering. */
const NETWORK_FAILURES_TO_STOP = 5;
const REQUEST_TIMEOUT_MS = 30_000;
/** The longest `Retry-After` a run waits for before giving the 429 to the checks. */
const LONGEST_RETRY_WAIT_S = 60;

/**
 * Sends the run's requests one at a time, signed, paced to `rate`, within `maxRequests` and the
 * deadline. A `429` (documented: the service may rate-limit) is sent again after its
 * `Retry-After`, up to three times, so a rate-limited service is not reported as refusing valid
 * data. Network failures become exchanges without an answer; after five in a row the run stops.
 */
export class Traffic {
  /** Requests sent so far. */
  used = 0;
  /** Why sending stopped early, when it did. */
  stopped?: string;
  private nextSlot = 0;
  private failuresInRow = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly limits: TrafficLimits,
    private readonly credentials: Credentials,
    private readonly signature: SignatureOptions,
    private readonly onExchange: (exchange: Exchange) => void = () => {},
  ) {}

  /** Sends nothing more: the run stops early, for `reason`. */
  stop(reason: string): void {
    this.stopped ??= reason;
  }

  /** Whether no further request may be sent. */
  get exhausted(): boolean {
    if (this.stopped) return true;
    if (this.used >= this.limits.maxRequests)
      this.stopped = `the request budget (${this.limits.maxRequests}) is spent`;
    else if (Date.now() >= this.limits.deadline) this.stopped = 'the time budget is spent';
    return this.stopped !== undefined;
  }

  /** Sends one request of `operation`; throws {@link BudgetExhausted} when none may be sent. */
  async send(operation: Operation, spec: RequestSpec): Promise<Exchange> {
    const body = spec.body;
    const headers: Record<string, string> = {};
    const contentType = spec.contentType === undefined ? 'application/json' : spec.contentType;
    if (contentType !== null && body !== undefined) headers['content-type'] = contentType;
    const authorization = authorizationValue(
      spec.authorization,
      body ?? new Uint8Array(),
      this.credentials,
      this.signature,
    );
    if (authorization !== undefined) headers.authorization = authorization;
    const messageSignature: MessageSignatureRecipe =
      spec.messageSignature ??
      (spec.authorization.kind === 'signed'
        ? { kind: 'signed', as: spec.authorization.as }
        : { kind: 'none' });
    // Made for each attempt: a request sent again after a 429 is signed again (a new `created`
    // and nonce), as clients do; the service would refuse the same nonce twice.
    const attempt = (): SentRequest => ({
      method: spec.method,
      url: `${this.baseUrl}${spec.target}`,
      target: spec.target,
      headers: {
        ...headers,
        ...messageSignatureFields(
          messageSignature,
          {
            method: spec.method,
            baseUrl: this.baseUrl,
            target: spec.target,
            ...(body ? { body } : {}),
          },
          this.credentials,
        ),
      },
      authorization: spec.authorization,
      messageSignature,
      ...(body ? { body } : {}),
      ...(spec.idFrom ? { idFrom: spec.idFrom } : {}),
    });
    let exchange: Exchange | undefined;
    for (let tries = 0; tries < 4; tries++) {
      exchange = await this.once(operation, attempt());
      const wait = retryAfter(exchange);
      if (wait === undefined || tries === 3 || Date.now() + wait * 1000 >= this.limits.deadline)
        break;
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
    return exchange as Exchange;
  }

  private async once(operation: Operation, request: SentRequest): Promise<Exchange> {
    if (this.exhausted) throw new BudgetExhausted(this.stopped);
    await this.pace();
    this.used++;
    let exchange: Exchange;
    try {
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body ? { body: request.body } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      exchange = { operation, request, answer: answerOf(response.status, headers, bytes) };
      this.failuresInRow = 0;
    } catch (error) {
      exchange = { operation, request, error: networkError(error) };
      if (++this.failuresInRow >= NETWORK_FAILURES_TO_STOP) {
        this.stopped = `the service stopped answering (${exchange.error})`;
      }
    }
    this.onExchange(exchange);
    return exchange;
  }

  private async pace() {
    if (this.limits.rate <= 0) return;
    const now = Date.now();
    const wait = this.nextSlot - now;
    this.nextSlot = Math.max(now, this.nextSlot) + 1000 / this.limits.rate;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Seconds to wait before sending a 429'd request again, or undefined when it is not one. */
function retryAfter(exchange: Exchange): number | undefined {
  if (exchange.answer?.status !== 429) return undefined;
  const seconds = Number(exchange.answer.headers['retry-after'] ?? '1');
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= LONGEST_RETRY_WAIT_S
    ? seconds
    : undefined;
}

/** A network failure in words: the system error code when Node gives one. */
export function networkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (typeof cause?.code === 'string')
    return `${cause.code}${typeof cause.message === 'string' ? `: ${cause.message}` : ''}`;
  if ((error as Error)?.name === 'TimeoutError')
    return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  return (error as Error)?.message ?? String(error);
}
