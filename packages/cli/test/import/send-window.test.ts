import { describe, expect, it } from 'vitest';
import { DEFAULT_PAUSE_MS, SendWindow } from '../../src/import/send-window.js';

function windowAt(max: number) {
  let now = 1_000_000;
  const window = new SendWindow(max, () => now);
  return { window, advance: (ms: number) => (now += ms) };
}

describe('SendWindow', () => {
  it('allows --concurrency rows in flight', () => {
    const { window } = windowAt(3);
    for (let i = 0; i < 3; i++) {
      expect(window.canSend()).toBe(true);
      window.inFlight++;
    }
    expect(window.canSend()).toBe(false);
  });

  it('halves once per burst of push-backs and holds every send for Retry-After', () => {
    const { window, advance } = windowAt(8);
    window.pushedBack(2000);
    window.pushedBack(1000); // the same burst: other rows in flight answered 429 too
    window.pushedBack(3000);
    expect(window.limit).toBe(4);
    expect(window.pushBacks).toBe(1);
    expect(window.canSend()).toBe(false);
    expect(window.pauseLeft()).toBe(3000);
    advance(2999);
    expect(window.canSend()).toBe(false);
    advance(1);
    expect(window.canSend()).toBe(true);
    window.pushedBack(undefined); // a new episode after the pause
    expect(window.limit).toBe(2);
    expect(window.pauseLeft()).toBe(DEFAULT_PAUSE_MS);
    advance(DEFAULT_PAUSE_MS);
    window.pushedBack(0);
    window.pushedBack(0);
    expect(window.limit).toBe(1); // never below one row
    advance(1);
    window.pushedBack(0);
    expect(window.limit).toBe(1);
  });

  it('climbs back by one row per window of answered rows, up to the maximum', () => {
    const { window, advance } = windowAt(4);
    window.pushedBack(10);
    advance(10);
    window.pushedBack(10);
    advance(10);
    expect(window.limit).toBe(1);
    window.answered();
    expect(window.limit).toBe(2);
    window.answered();
    expect(window.limit).toBe(2);
    window.answered();
    expect(window.limit).toBe(3);
    for (let i = 0; i < 20; i++) window.answered();
    expect(window.limit).toBe(4);
  });
});
