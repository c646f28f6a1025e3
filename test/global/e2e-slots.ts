/**
 * A counting lock between processes, built on file-lock.ts: `slots` slot files, each held by at
 * most one process. A process takes one free slot, or all of them when it must run alone. A
 * gate (a lock of its own) is held while waiting: a process waiting to run alone has already
 * taken the first slots and keeps newcomers out, so it cannot be starved; slots are always
 * taken in order, so two such processes cannot deadlock.
 */
import { join } from 'node:path';
import { lock, lockHolder, tryLock, unlock } from './file-lock.js';

export interface SlotRequest {
  /** The slot files live here. */
  dir: string;
  slots: number;
  /** Take every slot: no other process holds one while this one runs. */
  alone: boolean;
  /** Gives up (throws) after waiting this long. */
  timeoutMs: number;
  pollMs?: number;
}

const slotPath = (dir: string, i: number) => join(dir, `slot-${i}.lock`);

/** Waits for the slot(s) and returns the function that releases them. */
export async function takeSlots(request: SlotRequest): Promise<() => void> {
  const { dir, slots, alone, timeoutMs, pollMs = 50 } = request;
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(0, deadline - Date.now());
  const held: string[] = [];
  const release = () => {
    for (const path of held.splice(0)) unlock(path);
  };
  const gate = join(dir, 'gate.lock');
  await lock(gate, timeoutMs, pollMs);
  try {
    if (alone) {
      for (let i = 0; i < slots; i++) {
        await lock(slotPath(dir, i), left(), pollMs);
        held.push(slotPath(dir, i));
      }
    } else {
      for (;;) {
        const free = [...Array(slots).keys()].find((i) => tryLock(slotPath(dir, i)));
        if (free !== undefined) {
          held.push(slotPath(dir, free));
          break;
        }
        if (left() === 0) {
          const holders = [...Array(slots).keys()].map((i) => lockHolder(slotPath(dir, i)));
          throw new Error(`no free slot in ${dir} after ${timeoutMs} ms (held by ${holders})`);
        }
        await new Promise((r) => setTimeout(r, pollMs));
      }
    }
  } catch (error) {
    release();
    throw error;
  } finally {
    unlock(gate);
  }
  return release;
}
