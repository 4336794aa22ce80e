/**
 * How many rows may be in flight (docs/import.md "Concurrency and back-pressure"): at most `--concurrency`, fewer after
 * the service pushed back. Additive increase, multiplicative decrease, as TCP's congestion
 * window: a `429` or `503` halves the window and holds every new send until its `Retry-After`
 * has passed; then each window's worth of answered rows opens it by one, back to the maximum.
 *
 * @module
 */

/** Wait after a push-back that named no `Retry-After`. */
export const DEFAULT_PAUSE_MS = 1000;

/** The window of one run; time comes from `now`, so tests need no clock. */
export class SendWindow {
  /** Rows in flight now. */
  inFlight = 0;
  /** How many may be; a fraction grows between whole rows. */
  private size: number;
  /** No new send before this time (ms since the epoch). */
  private pausedUntil = 0;
  /** Times the window was halved; shown in the progress and the summary. */
  pushBacks = 0;

  constructor(
    readonly max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.size = max;
  }

  /** Whole rows the window allows now (at least 1). */
  get limit(): number {
    return Math.max(1, Math.floor(this.size));
  }

  /** Milliseconds until the pause ends; 0 when not paused. */
  pauseLeft(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }

  /** Whether one more row may be sent now. */
  canSend(): boolean {
    return this.inFlight < this.limit && this.pauseLeft() === 0;
  }

  /** A row answered normally (any status but `429`/`503`): the window grows by 1/size. */
  answered(): void {
    if (this.size < this.max) this.size = Math.min(this.max, this.size + 1 / this.limit);
  }

  /**
   * The service pushed back (`429`/`503`, seen on any attempt). The first push-back of an
   * episode halves the window; those that arrive during the pause it started (the other rows
   * of the same burst) only extend the pause, so one burst is one halving.
   */
  pushedBack(retryAfterMs: number | undefined): void {
    const now = this.now();
    if (now >= this.pausedUntil) {
      this.size = Math.max(1, Math.floor(this.limit / 2));
      this.pushBacks++;
    }
    this.pausedUntil = Math.max(this.pausedUntil, now + (retryAfterMs ?? DEFAULT_PAUSE_MS));
  }
}
