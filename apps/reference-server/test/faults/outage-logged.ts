/**
 * What a fault test waits for instead of a fixed sleep: the server's outage log (src/storage/health/
 * outage-log.ts) in its output, one line when an outage begins and one when it ends, the end
 * written once the database has answered for outageQuietMs. Lines reach the output within the
 * logger's periodic flush.
 */
import { waitFor } from '@institution-api/test-support/wait-for';

/** How many outages the output tells of: begun, and ended. */
export function outagesLogged(output: string): { began: number; ended: number } {
  return {
    began: output.match(/"msg":"database unavailable/g)?.length ?? 0,
    ended: output.match(/"msg":"database available again"/g)?.length ?? 0,
  };
}

/**
 * Resolves once the server's output tells that an outage began (`began`), that one began and
 * every one has ended (`ended`), or that none is going on, whether or not one happened (`settled`).
 */
export function waitForOutageLog(
  server: { output(): string },
  until: 'began' | 'ended' | 'settled',
  timeoutMs = 20_000,
): Promise<true> {
  return waitFor(
    () => {
      const { began, ended } = outagesLogged(server.output());
      if (until === 'began') return began > 0;
      return ended === began && (until === 'settled' || began > 0);
    },
    {
      timeoutMs,
      message: () =>
        `the outage log ${until === 'began' ? 'telling of an outage' : 'telling of its end'}: ${JSON.stringify(outagesLogged(server.output()))}`,
    },
  );
}
