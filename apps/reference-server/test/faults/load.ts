import type { Credential } from '@institution-api/test-support/reference-server';
import { signedRequest } from '@institution-api/test-support/signed-request';

/** One answer to a create of the load. */
export interface CreateAnswer {
  status: number;
  /** When it arrived (`performance.now()`). */
  at: number;
  /** The created user's id, for a 201. */
  id?: string;
  retryAfter?: string | null;
  problemType?: string;
  /** Behind a test load balancer: the backend that answered (its `x-backend`). */
  backend?: string;
}

/** Creates sent without pause by `concurrency` loops, until stopped. */
export interface CreateLoad {
  answers: CreateAnswer[];
  /** Resolves once the first answer of `status` after `since` arrives (rejects after `timeoutMs`). */
  next(status: number, since: number, timeoutMs: number): Promise<CreateAnswer>;
  /** Stops the loops after their requests in flight; resolves with every answer. */
  stop(): Promise<CreateAnswer[]>;
}

let runs = 0;

/**
 * Signed creates of distinct new users (card numbers of their own, so each acknowledged create is
 * a row to look for afterwards), `concurrency` at a time, as an integration under load sends them.
 */
export function startCreateLoad(
  baseUrl: string,
  credential: Credential,
  concurrency = 6,
): CreateLoad {
  runs += 1;
  const run = runs;
  const answers: CreateAnswer[] = [];
  let stopped = false;
  const loop = async (loopIndex: number) => {
    for (let n = 0; !stopped; n++) {
      const card = `GHA-${String(run % 10)}${String(loopIndex).padStart(2, '0')}${String(n).padStart(6, '0')}-${n % 10}`;
      const body = {
        email: `load.${run}.${loopIndex}.${n}@example.com`,
        firstName: 'Load',
        lastName: `Loop ${loopIndex}`,
        mobileNumber: '0241234567',
        ghanaCardNumber: card,
        monthlyIncome: n,
      };
      const request = signedRequest('POST', `${baseUrl}/api/v1/external/users`, credential, {
        body,
        messageSignature: false,
      });
      const response = await fetch(request.url, request);
      const answer = (await response.json()) as { id?: string; type?: string };
      const backend = response.headers.get('x-backend');
      answers.push({
        status: response.status,
        at: performance.now(),
        ...(backend === null ? {} : { backend }),
        ...(response.status === 201 ? { id: answer.id } : {}),
        ...(response.status >= 400
          ? { retryAfter: response.headers.get('retry-after'), problemType: answer.type }
          : {}),
      });
      // An answer of 503 comes at once: pause a moment, as a client honouring Retry-After would
      // (far less than it asks), so that the outage is a few hundred requests, not thousands.
      if (response.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const loops = Array.from({ length: concurrency }, (_, i) => loop(i));
  return {
    answers,
    async next(status, since, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const found = answers.find((a) => a.status === status && a.at >= since);
        if (found) return found;
        if (performance.now() > deadline) {
          throw new Error(
            `no ${status} within ${timeoutMs} ms; answers since: ${summary(answers.filter((a) => a.at >= since))}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return answers;
    },
  };
}

/** Counts by status, e.g. `{ "201": 812, "503": 97 }`. */
export function countByStatus(answers: CreateAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

function summary(answers: CreateAnswer[]): string {
  return JSON.stringify(countByStatus(answers));
}
