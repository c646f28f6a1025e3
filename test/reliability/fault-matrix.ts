/**
 * The fault matrix: every call launchRemote() and close() make × every way the network or the
 * service can fail it, injected through the emulator's admin faults API. Each case asserts that
 * the launch succeeds or fails with a typed error, that the injected fault was hit, that nothing
 * is left running and that no promise was rejected unhandled. One emulator per file, reset
 * between cases.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, type FaultSpec, startEmulator } from '../../src/emulator/index.js';
import { clearPreflightCache } from '../../src/launch/preflight.js';
import { expectNothingRunning, expectTyped, privateLedger, RejectionWatch } from './helpers.js';

const API = '/api/v2/browser';

type FaultOnly = Omit<FaultSpec, 'method' | 'path' | 'count'>;

// The waits are short: no cell asserts how long anything took, and the client's own timeouts
// are many seconds, so a 1 s Retry-After or delay took the same path as these (the outcome of
// every cell, printed with RELIABILITY_PRINT=1, is the same) while costing ~17 s per run.
export const FAULTS: Record<string, FaultOnly> = {
  '502': { status: 502, body: { error: 'Bad gateway (injected)' } },
  '503': {
    status: 503,
    body: { error: 'Temporarily unavailable (injected)', reason: 'maintenance', retry_after: 0 },
  },
  '429': {
    status: 429,
    body: {
      error: 'Concurrent session limit reached (injected)',
      limit_type: 'sessions',
      current_usage: 1,
      limit: 1,
      retry_after: 0,
    },
  },
  drop: { dropConnection: true },
  'handled-then-drop': { dropConnection: true, afterHandling: true },
  'handled-then-502': {
    status: 502,
    afterHandling: true,
    body: { error: 'Gateway timeout (injected)' },
  },
  slow: { delayMs: 250 },
};

export interface Endpoint {
  name: string;
  fault: Pick<FaultSpec, 'method' | 'path'>;
  /** Faults injected first so the call under test happens at all. */
  before?: FaultSpec[];
  /** Fault kinds that cannot apply here, with the reason (shown as a skipped case). */
  notApplicable?: Record<string, string>;
}

export const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /configurations/validate (preflight)',
    fault: { method: 'POST', path: `${API}/configurations/validate` },
  },
  { name: 'POST /sessions', fault: { method: 'POST', path: `${API}/sessions` } },
  {
    // Only a lost create lists the running sessions: lose one first.
    name: 'GET /sessions (reconciliation after a lost create)',
    fault: { method: 'GET', path: `${API}/sessions` },
    before: [
      { method: 'POST', path: `${API}/sessions`, dropConnection: true, afterHandling: true },
    ],
  },
  {
    name: 'GET /sessions/{id}/connection',
    fault: { method: 'GET', path: `${API}/sessions/*/connection` },
  },
  {
    name: 'CDP websocket upgrade',
    fault: { path: '/cdp/*' },
    notApplicable: {
      'handled-then-502':
        'a 101 Switching Protocols cannot be replaced by a status once sent; handled-then-drop covers it',
    },
  },
  { name: 'DELETE /sessions/{id} (close)', fault: { method: 'DELETE', path: `${API}/sessions/*` } },
];

/** What the matrix drives: one library's launchRemote() and close(). */
export interface MatrixLibrary {
  name: 'Playwright' | 'Puppeteer';
  /** Launches, proves the browser answers over CDP, and returns its close(). */
  launch(options: {
    baseUrl: string;
    token: string;
    proxyPassword: string;
  }): Promise<() => Promise<void>>;
}

export type Outcome =
  | 'launched and closed'
  | `launch failed: ${string}`
  | `close failed: ${string}`;

/**
 * Cells known to fail until a fix lands on main: `'<endpoint> × <fault>'` → the fix awaited.
 * They run as `it.fails` so main stays green and the gap stays visible.
 */
export type KnownGaps = Record<string, string>;

/** Gaps both libraries share (the launch/ layer's). */
export const SHARED_GAPS: KnownGaps = {};

export interface MatrixOptions {
  /** Cells known to fail until their fix lands. */
  gaps?: KnownGaps;
  /**
   * Rows this library skips, with the reason: calls made by the library-agnostic launch/ layer
   * behave the same whichever adapter called them, so one library's matrix covers them.
   */
  sharedRows?: { names: string[]; coveredBy: string };
}

export function defineFaultMatrix(lib: MatrixLibrary, options: MatrixOptions = {}): void {
  const gaps = options.gaps ?? {};
  let emu: EmulatorHandle;
  let ledger: ReturnType<typeof privateLedger>;
  const rejections = new RejectionWatch();
  const outcomes = new Map<string, Outcome>();

  beforeAll(async () => {
    ledger = privateLedger('rb-faults-');
    rejections.start();
    emu = await startEmulator({ ffmpegPath: false });
  });
  afterEach(async () => {
    clearPreflightCache();
    await emu.admin.reset();
  });
  afterAll(async () => {
    rejections.stop();
    await emu?.close();
    ledger?.restore();
    if (process.env.RELIABILITY_PRINT) console.table(Object.fromEntries(outcomes));
  });

  describe(`${lib.name}: launchRemote + close under injected faults`, () => {
    for (const endpoint of ENDPOINTS) {
      if (options.sharedRows?.names.includes(endpoint.name)) {
        it.skip(`${endpoint.name}: same launch/ code as ${options.sharedRows.coveredBy}`, () => {});
        continue;
      }
      for (const [kind, fault] of Object.entries(FAULTS)) {
        const cell = `${endpoint.name} × ${kind}`;
        const na = endpoint.notApplicable?.[kind];
        if (na) {
          it.skip(`${cell}: not applicable (${na})`, () => {});
          continue;
        }
        const gap = gaps[cell];
        const test = gap ? it.fails : it;
        test(gap ? `${cell} [waiting for: ${gap}]` : cell, async () => {
          for (const before of endpoint.before ?? []) await emu.admin.injectFault(before);
          await emu.admin.injectFault({ ...endpoint.fault, ...fault });
          const credentials = {
            baseUrl: emu.url,
            token: emu.token,
            proxyPassword: emu.proxyPassword,
          };
          let outcome: Outcome;
          let close: (() => Promise<void>) | undefined;
          try {
            close = await lib.launch(credentials);
          } catch (error) {
            expectTyped(error);
            outcome = `launch failed: ${(error as Error).name}`;
          }
          if (close) {
            try {
              await close();
              outcome = 'launched and closed';
            } catch (error) {
              expectTyped(error);
              outcome = `close failed: ${(error as Error).name}`;
            }
          }
          outcomes.set(`${lib.name}: ${cell}`, outcome!);
          // The case tested something: every fault it injected was hit.
          expect(
            (await emu.admin.listFaults()).map((f) => f.path),
            'faults never hit',
          ).toEqual([]);
          await expectNothingRunning(emu);
          await rejections.expectNone();
        });
      }
    }
  });
}
