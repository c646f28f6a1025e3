/**
 * What every reliability case checks afterwards, shared by the matrix files: nothing is left
 * running on the emulator, no promise was rejected without a handler, and every failure is one
 * of the library's typed errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import { isRemoteBrowserError } from '../../src/http/errors.js';
import { eventually } from '../helpers/pages.js';

/** Collects the process's unhandled rejections for one test file. */
export class RejectionWatch {
  readonly seen: unknown[] = [];
  readonly #listener = (reason: unknown) => void this.seen.push(reason);

  start(): this {
    process.on('unhandledRejection', this.#listener);
    return this;
  }

  stop(): void {
    process.off('unhandledRejection', this.#listener);
  }

  /** Asserts none arrived since the last call (after letting pending callbacks run). */
  async expectNone(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const seen = this.seen.splice(0).map((r) => (r instanceof Error ? r.stack : String(r)));
    expect(seen, 'unhandled rejections').toEqual([]);
  }
}

/**
 * Zero sessions running on the emulator. Background clean-ups (a late create's delete, a
 * reconciliation's second look) get `withinMs` to finish: that is the documented mechanism.
 */
export async function expectNothingRunning(emu: EmulatorHandle, withinMs = 10_000): Promise<void> {
  await eventually(
    async () => (await emu.admin.state()).runningSessions === 0,
    withinMs,
    'zero running sessions on the emulator',
  ).catch(() => undefined);
  expect((await emu.admin.state()).runningSessions, 'sessions left running').toBe(0);
}

/** Asserts `error` is one of the library's errors (not a TypeError, not a raw ws event). */
export function expectTyped(error: unknown): void {
  expect(
    isRemoteBrowserError(error),
    `expected a typed error, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
  ).toBe(true);
}

/** A private ledger folder for one file, so reconciliation and reap see only its sessions. */
export function privateLedger(prefix: string): { dir: string; restore: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const previous = process.env.REMOTE_BROWSER_CACHE_DIR;
  process.env.REMOTE_BROWSER_CACHE_DIR = dir;
  return {
    dir,
    restore: () => {
      if (previous === undefined) delete process.env.REMOTE_BROWSER_CACHE_DIR;
      else process.env.REMOTE_BROWSER_CACHE_DIR = previous;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
