/// <reference types="node" />
/**
 * `@institution-api/runtime/server-stop`: how the toolkit's servers stop, shared by the reference
 * server, the mock server (`institution-api-mock`) and the CLI's `sign-proxy`, so that they
 * stop alike: on SIGTERM or SIGINT (or once the npm that started them has gone), draining the
 * requests in flight for at most `SHUTDOWN_DRAIN_MS`. Node only (`node:http` servers, `process`).
 *
 * @module
 */
import type { Server, ServerResponse } from 'node:http';

/** `SHUTDOWN_DRAIN_MS` when unset: how long requests in flight may take after a stop signal. */
export const defaultShutdownDrainMs = 10_000;

/** The largest `SHUTDOWN_DRAIN_MS` (ten minutes). */
export const maxShutdownDrainMs = 600_000;

/**
 * `SHUTDOWN_DRAIN_MS` (already trimmed; undefined when unset): an integer of milliseconds from 0
 * to {@link maxShutdownDrainMs}, {@link defaultShutdownDrainMs} when unset. Throws an error naming
 * the variable and the value otherwise.
 */
export function parseShutdownDrainMs(value: string | undefined): number {
  if (value === undefined) return defaultShutdownDrainMs;
  const number = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= 0 && number <= maxShutdownDrainMs)) {
    throw new Error(
      `SHUTDOWN_DRAIN_MS must be an integer from 0 to ${maxShutdownDrainMs}, not "${value}".`,
    );
  }
  return number;
}

/** A server whose requests in flight are tracked, to drain it on a stop (see {@link drainable}). */
export interface Drainable {
  /** How many requests are in flight: received, not yet answered. */
  readonly inFlight: number;
  /**
   * Drains the server; resolves once every connection has closed. `onDeadline` is told when
   * `timeoutMs` passes with connections still open, just before they are cut.
   */
  drain(timeoutMs: number, onDeadline?: () => void): Promise<void>;
}

/**
 * Tracks the requests of `server` from now on, for a bounded drain. Draining:
 * 1. stops accepting connections and closes idle keep-alive connections at once;
 * 2. lets requests in flight finish, each answered with `Connection: close` (as are requests
 *    that still arrive on open connections), so that no connection outlives its answer;
 * 3. after `timeoutMs`, cuts every connection left: a request hanging open (a body that never
 *    finishes arriving) does not hold the stop.
 */
export function drainable(server: Server): Drainable {
  let draining = false;
  // Responses not yet sent when the drain begins: told to close their connection once done.
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_request, response: ServerResponse) => {
    if (draining) response.setHeader('Connection', 'close');
    inFlight.add(response);
    response.once('close', () => inFlight.delete(response));
  });
  return {
    get inFlight() {
      return inFlight.size;
    },
    drain: (timeoutMs, onDeadline) =>
      new Promise<void>((resolve) => {
        draining = true;
        for (const response of inFlight) {
          if (!response.headersSent) response.setHeader('Connection', 'close');
        }
        const deadline = setTimeout(() => {
          onDeadline?.();
          server.closeAllConnections();
        }, timeoutMs);
        deadline.unref();
        server.close(() => {
          clearTimeout(deadline);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** Why a server stops: a signal, or the npm that started it has gone. */
export type StopReason = 'SIGTERM' | 'SIGINT' | 'orphaned';

/** How often a server started by npm checks that npm is still there. */
export const parentCheckMs = 250;

/**
 * Resolves on the first SIGTERM or SIGINT, and stops listening for them (a second signal then
 * ends the process at once, as Node does by default). Started by npm (`npx …`, an npm script:
 * `npm_command` is set in `env`), it also resolves with `'orphaned'` once its parent process has
 * gone: npm passes SIGTERM on to the shell it runs the command through (`sh -c`), and that shell
 * (dash, bash) dies of it without passing it on, so `kill <npm's PID>` would otherwise leave the
 * server running, re-parented, holding its port.
 */
export function stopRequested(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<StopReason> {
  return new Promise((resolve) => {
    const parent = process.ppid;
    const watch =
      env.npm_command === undefined
        ? undefined
        : setInterval(() => {
            if (process.ppid !== parent) stop('orphaned');
          }, parentCheckMs).unref();
    const stop = (why: StopReason) => {
      clearInterval(watch);
      process.off('SIGTERM', stop).off('SIGINT', stop);
      resolve(why);
    };
    process.once('SIGTERM', stop).once('SIGINT', stop);
  });
}
