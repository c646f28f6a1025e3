import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmulatorClock } from '../../src/emulator/clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('EmulatorClock', () => {
  it('is real time plus the advanced offset', () => {
    let real = 1_000;
    const clock = new EmulatorClock(() => real);
    clock.advance(500);
    real = 1_100;
    expect(clock.now()).toBe(1_600);
  });

  it('fires a timer when the clock is advanced past it, in time order', () => {
    const clock = new EmulatorClock(() => 0);
    const fired: string[] = [];
    clock.at(2_000, () => fired.push('late'));
    clock.at(1_000, () => fired.push('early'));
    clock.advance(999);
    expect(fired).toEqual([]);
    clock.advance(5_000);
    expect(fired).toEqual(['early', 'late']);
    // Each fired once: advancing further fires nothing again.
    clock.advance(5_000);
    expect(fired).toEqual(['early', 'late']);
  });

  it('fires a timer when real time reaches it without any advance', async () => {
    vi.useFakeTimers();
    const clock = new EmulatorClock();
    const fn = vi.fn();
    clock.at(clock.now() + 1_000, fn);
    await vi.advanceTimersByTimeAsync(999);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).toHaveBeenCalledOnce();
  });

  it('fires a timer armed before an advance at the new, earlier real instant', async () => {
    vi.useFakeTimers();
    const clock = new EmulatorClock();
    const fn = vi.fn();
    clock.at(clock.now() + 60_000, fn);
    clock.advance(30_000);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fn).toHaveBeenCalledOnce();
  });

  it('never fires a cancelled timer', () => {
    const clock = new EmulatorClock(() => 0);
    const fn = vi.fn();
    clock.at(10, fn).cancel();
    clock.advance(100);
    expect(fn).not.toHaveBeenCalled();
  });

  it('rejects a negative advance', () => {
    expect(() => new EmulatorClock().advance(-1)).toThrow(RangeError);
  });
});
