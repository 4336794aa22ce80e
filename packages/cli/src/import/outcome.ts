/**
 * What became of a row (spec Assumptions, "Bulk import"; docs/import.md "The report"): the line the report
 * and the journal write for it, and how an answer of the client maps onto the outcomes.
 *
 * @module
 */

import type { CreateUserData, UsersClientError, UsersClientResult } from '@institution-api/client';
import type { Problem } from '@institution-api/types';
import type { LocalProblem } from './row-check.js';

/**
 * `created` (201), `existing` (200: the service already knew the customer, in this institution
 * or added to it now), `conflict` (409), `invalid` (refused here, never sent; or a 400/413 of the
 * service), `failed` (no usable answer once the client's retries were spent, or an error status
 * no other outcome covers). `valid` appears only in a `--dry-run` report: checked, not sent.
 */
export type Outcome = 'created' | 'existing' | 'conflict' | 'invalid' | 'failed' | 'valid';

/** Every outcome, in the order the summary lists them. */
export const OUTCOMES: readonly Outcome[] = [
  'created',
  'existing',
  'conflict',
  'invalid',
  'failed',
  'valid',
];

/** One line of the report (and of the journal): what became of the row starting at `line`. */
export interface ReportEntry {
  line: number;
  outcome: Outcome;
  /** The HTTP status of the service's final answer, when there was one. */
  status?: number;
  /** The user's id, when the service gave one. */
  userId?: string;
  /** The service's problem details, or the local validation errors, or why no answer came. */
  problem?: Problem | LocalProblem;
}

/** What one send of a row came to. */
export type Settled =
  /** The row is finished: this is its report line. */
  | { kind: 'finished'; entry: ReportEntry }
  /** `429` or `503` once the client's own retries were spent: the row goes again, later. */
  | { kind: 'again'; status: number }
  /** No answer at all (connection refused, reset, timeout) after the client's retries. */
  | { kind: 'unreached'; entry: ReportEntry; error: UsersClientError }
  /** The service refuses this client, not this row (`401`, `403`, `404`, `405`, `415`). */
  | { kind: 'refused'; entry: ReportEntry; problem: Problem }
  /** The run's own abort (a second Ctrl-C): the row is not finished and will be sent again. */
  | { kind: 'aborted' };

/** Statuses that say the run is misconfigured (keys, URL), whatever the row. */
const CLIENT_REFUSED = new Set([401, 403, 404, 405, 415]);

/** Maps the client's answer to a create of the row at `line`. */
export function settle(line: number, result: UsersClientResult<CreateUserData>): Settled {
  const { data, error, response } = result;
  if (data) {
    return {
      kind: 'finished',
      entry: {
        line,
        outcome: data.created ? 'created' : 'existing',
        status: response.status,
        userId: data.user.id,
      },
    };
  }
  if (error.kind === 'http') {
    const { kind: _kind, ...problem } = error;
    const status = problem.status;
    if (status === 429 || status === 503) return { kind: 'again', status };
    const outcome =
      status === 409 ? 'conflict' : status === 400 || status === 413 ? 'invalid' : 'failed';
    const entry: ReportEntry = { line, outcome, status, problem };
    return CLIENT_REFUSED.has(status)
      ? { kind: 'refused', entry, problem }
      : { kind: 'finished', entry };
  }
  if (error.kind === 'aborted') return { kind: 'aborted' };
  const entry: ReportEntry = {
    line,
    outcome: 'failed',
    ...(response ? { status: response.status } : {}),
    problem: { type: 'about:blank', title: error.kind, detail: error.message },
  };
  if (error.kind === 'invalid-response') return { kind: 'finished', entry };
  return { kind: 'unreached', entry, error };
}
