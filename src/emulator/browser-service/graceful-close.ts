/**
 * Closes a Chromium that owns a kept profile through CDP `Browser.close` before the runtime's
 * stop() kills its process group: Chromium writes cookies and local storage to disk lazily and on
 * a clean shutdown, so a kill alone would lose what the session stored (`store_cache` profiles).
 * Bounded: if Chromium does not exit in time, stop() kills it as usual.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'undici';
import type { RunningBrowser } from '../runtime/index.js';

const GRACE_MS = 5_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function closeGracefully(browser: RunningBrowser, graceMs = GRACE_MS): Promise<void> {
  const deadline = Date.now() + graceMs;
  await new Promise<void>((resolve) => {
    const socket = new WebSocket(`ws://${browser.chromiumAddress}${browser.browserWsPath}`);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      socket.close();
      resolve();
    }, graceMs);
    socket.addEventListener('open', () => {
      socket.send(JSON.stringify({ id: 1, method: 'Browser.close' }));
    });
    socket.addEventListener('close', done);
    socket.addEventListener('error', done);
  });
  while (alive(browser.pid) && Date.now() < deadline) await sleep(50);
}
