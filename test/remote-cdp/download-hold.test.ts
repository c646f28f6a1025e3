import { describe, expect, it, vi } from 'vitest';
import { DownloadHold, type HeldBody } from '../../src/remote-cdp/download-hold.js';

const body = (name: string, dropped: string[]): HeldBody => ({
  stage: async () => {},
  discard: () => dropped.push(name),
});

describe('DownloadHold', () => {
  it('holds one response per URL: the second waits until the first is named', async () => {
    const hold = new DownloadHold(10_000);
    const dropped: string[] = [];
    const first = await hold.turn('http://x.test/export');
    first.hold(body('first', dropped));
    let secondTurn = false;
    const second = hold.turn('http://x.test/export').then((turn) => {
      secondTurn = true;
      return turn;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(secondTurn).toBe(false);
    const named = hold.take('http://x.test/export');
    expect(named).toBeDefined();
    (await second).hold(body('second', dropped));
    expect(secondTurn).toBe(true);
    expect(dropped).toEqual([]);
    hold.clear();
    expect(dropped).toEqual(['second']);
  });

  it('drops a body the browser does not name within the timeout, and frees its URL', async () => {
    vi.useFakeTimers();
    try {
      const hold = new DownloadHold(1000);
      const dropped: string[] = [];
      (await hold.turn('http://x.test/a')).hold(body('a', dropped));
      vi.advanceTimersByTime(1001);
      expect(dropped).toEqual(['a']);
      expect(hold.take('http://x.test/a')).toBeUndefined();
      const next = await hold.turn('http://x.test/a');
      next.cancel();
    } finally {
      vi.useRealTimers();
    }
  });
});
