/**
 * The reconnect soak: a pool-driven crawl of `pages` pages on an emulator in flaky-network mode.
 * Each worker takes a browser from the pool and crawls with it; a page whose browser dropped is
 * put back in the queue (as a framework retries the work a crashed browser had in flight) and
 * the worker asks the pool for a browser again. Half-way, one blip cuts every connection at
 * once. Takes the library as a parameter, so the same crawl runs on another checkout's code (its
 * numbers with delete-on-drop, for comparison).
 */
import type { Browser } from 'playwright-core';
import type { EmulatorHandle } from '../../src/emulator/index.js';

export interface SoakLibrary {
  // Another checkout's option type may differ: any options object.
  createSessionPool(options: any): {
    launch(): Promise<Browser>;
    close(): Promise<void>;
    readonly stats: object;
  };
}

export interface SoakResult {
  pages: number;
  crawled: number;
  retries: number;
  /** Launches that failed (a cut during the connect) and were retried. */
  launchFailures: number;
  /** Their messages, so a soak that fails says what failed. */
  launchErrors: string[];
  /** The first failed pages' errors, each with whether its browser was still connected. */
  pageErrors: string[];
  /** The crawl ran out of time (DEADLINE_MS) with pages left: a stuck worker, named here. */
  timedOut: boolean;
  sessionsCreated: number;
  cuts: number;
  runningAfter: number;
  poolStats: Record<string, number>;
  ms: number;
}

/** The crawl stops here with pages left: below the soak test's timeout, so the soak reports. */
const DEADLINE_MS = 90_000;

export async function crawl(
  lib: SoakLibrary,
  emu: EmulatorHandle,
  site: { url(path?: string): string },
  options: {
    pages: number;
    workers: number;
    poolSize: number;
    /** The account's concurrent-session limit; default the emulator's (50). */
    concurrentSessions?: number;
    extra?: Record<string, unknown>;
  },
): Promise<SoakResult> {
  const account = await emu.admin.createAccount(
    options.concurrentSessions === undefined
      ? {}
      : { limits: { concurrentSessions: options.concurrentSessions } },
  );
  const started = performance.now();
  const cutsBefore = (await emu.admin.state()).connectionCuts;
  const pool = lib.createSessionPool({
    size: options.poolSize,
    baseUrl: emu.url,
    token: account.token,
    proxyPassword: account.proxyPassword,
    preflight: false,
    ...options.extra,
  });
  const queue = Array.from({ length: options.pages }, (_, i) => site.url(`/?page=${i}`));
  const crawled = new Set<string>();
  let retries = 0;
  let launchFailures = 0;
  const launchErrors: string[] = [];
  const pageErrors: string[] = [];
  const launched = new Set<Browser>();
  // A launch the soak gave up on may still resolve: its browser is closed with the others.
  const pending = new Set<Promise<Browser>>();
  const deadline = Date.now() + DEADLINE_MS;
  let timedOut = false;
  let blipped = false;
  const pastDeadline = () => {
    if (Date.now() > deadline) timedOut = true;
    return timedOut;
  };
  // A launch a cut fails (its connect dropped) is retried, as a framework retries it.
  const launch = async (): Promise<Browser> => {
    for (;;) {
      try {
        const launching = pool.launch();
        pending.add(launching);
        launching.then((b) => launched.add(b)).catch(() => {});
        const browser = await within(launching, 'pool.launch()');
        pending.delete(launching);
        return browser;
      } catch (error) {
        launchErrors.push((error as Error).message);
        if (++launchFailures > 20) throw error;
      }
    }
  };
  const worker = async () => {
    let browser = await launch();
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
      if (pastDeadline()) return;
      try {
        const context = browser.contexts()[0]!;
        const page = context.pages()[0] ?? (await within(context.newPage(), 'newPage()'));
        await page.goto(url, { timeout: 15_000 });
        crawled.add(url);
        // Half-way, one blip cuts every session's connections, the ones in use too: the random
        // cuts alone may all hit the pool's warm sessions, and then nothing is re-attached.
        if (!blipped && crawled.size >= options.pages / 2) {
          blipped = true;
          void emu.admin.cutConnections().catch(() => {});
        }
      } catch (error) {
        queue.push(url);
        retries++;
        if (pageErrors.length < 10) {
          const connected = browser.isConnected() ? 'connected' : 'disconnected';
          pageErrors.push(`${connected}: ${(error as Error).message.split('\n')[0]}`);
        }
        if (!browser.isConnected() && !pastDeadline()) browser = await launch();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.workers }, worker));
  } finally {
    // A failed crawl still ends what it started, so the failure is the only one reported: a
    // launch given up on gets 30 s more to resolve into a browser that is closed too.
    await Promise.race([
      Promise.allSettled([...pending]),
      new Promise((r) => setTimeout(r, 30_000).unref()),
    ]);
    await Promise.all([...launched].map((b) => b.close().catch(() => {})));
    await pool.close();
  }
  const ms = performance.now() - started;
  const cuts = (await emu.admin.state()).connectionCuts - cutsBefore;
  const sessions = await listAll(emu, account.token);
  // Sessions kept after a drop nobody re-attached end with their window: wait it out (bounded).
  const windowEnd = Date.now() + 60_000;
  let running = sessions.filter((s) => s.status === 'running').length;
  while (running > 0 && Date.now() < windowEnd) {
    await new Promise((r) => setTimeout(r, 500));
    running = (await listAll(emu, account.token)).filter((s) => s.status === 'running').length;
  }
  return {
    pages: options.pages,
    crawled: crawled.size,
    retries,
    launchFailures,
    launchErrors,
    pageErrors,
    timedOut,
    sessionsCreated: sessions.length,
    cuts,
    runningAfter: running,
    poolStats: { ...pool.stats } as Record<string, number>,
    ms: Math.round(ms),
  };
}

/** A step of the crawl bounded, so a stuck one fails the soak by name instead of by timeout. */
async function within<T>(step: Promise<T>, what: string, ms = 45_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`reconnect soak: ${what} took over ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([step, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

async function listAll(emu: EmulatorHandle, token: string): Promise<{ status: string }[]> {
  const response = await fetch(`${emu.url}/api/v2/browser/sessions?status=all`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await response.json()) as { data: { status: string }[] }).data;
}
