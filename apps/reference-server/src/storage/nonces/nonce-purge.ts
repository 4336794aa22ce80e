/**
 * When to delete expired message-signature nonces (the table `message_signature_nonces`): every
 * {@link noncePurgeEvery}-th claim of a process deletes at most twice that many of the oldest
 * expired rows. So the deletes keep pace with the inserts at any rate (each claim pays for about two
 * deletes), no delete is ever large (a bounded statement, never a scan of the table), and a process
 * that claims nothing deletes nothing. An expired row that is still there does no harm: a claim of
 * its nonce takes it over.
 */
export const noncePurgeEvery = 256;

/** Counts claims; `due()` is true on every {@link noncePurgeEvery}-th, then delete `batch` at most. */
export function noncePurge(every = noncePurgeEvery): { due(): boolean; batch: number } {
  let claims = 0;
  return {
    due() {
      claims = (claims + 1) % every;
      return claims === 0;
    },
    batch: every * 2,
  };
}
