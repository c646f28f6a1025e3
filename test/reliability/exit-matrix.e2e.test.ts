/**
 * The exit matrix: a process holding a remote session is interrupted in every way a user's
 * process ends (signals with the exit hooks, SIGKILL with the watchdog, each also while the
 * create is on the wire; a host with its own signal handler; the emulator in the same process;
 * a Playwright Test worker that exits mid-test and a runner interrupted with Ctrl-C; the same
 * with a session pool and with pre-warming, whose warm sessions no test holds yet).
 * Afterwards nothing may be running, and a `reapSessions()` over the process's ledger must
 * report exactly the sessions that were still running (none, where the exit path is documented
 * to end them itself).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { reapSessions } from '../../src/launch/reap.js';
import { configFile } from '../fixture/harness.js';
import { runSuite, writeSuite } from '../fixture/inline-suite.js';
import { requireFreshDist } from '../helpers/fresh-dist.js';
import { eventually } from '../helpers/pages.js';
import { processesWithEnv } from '../helpers/temp-dirs.js';
import { RejectionWatch } from './helpers.js';

const CHILD = new URL('./fixtures/exit-child.mjs', import.meta.url).pathname;
const CREATE = { method: 'POST', path: '/api/v2/browser/sessions' } as const;

let emu: EmulatorHandle;
let api: BrowserApi;
let scratch: string;
const rejections = new RejectionWatch();

beforeAll(async () => {
  // The children run the built package: never test an older build.
  requireFreshDist();
  rejections.start();
  scratch = mkdtempSync(join(tmpdir(), 'rb-exit-matrix-'));
  emu = await startEmulator({ ffmpegPath: false });
  api = new BrowserApi({ baseUrl: emu.url, token: emu.token });
});
afterEach(async () => {
  await emu.admin.reset();
});
afterAll(async () => {
  rejections.stop();
  await api?.close();
  await emu?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// The launch fixes for these cases landed (issue 11 §2): no known gap left.
const IN_FLIGHT = undefined;
const LEDGER_STATES = undefined;
const SAME_PROCESS = undefined;

/** `it`, or `it.fails` with the fix it waits for named in the title. */
const test = (title: string, gap: string | undefined, fn: () => Promise<void>) =>
  gap ? it.fails(`${title} [waiting for: ${gap}]`, fn) : it(title, fn);

const running = async () => (await api.sessions.list({ status: 'running' })).length;

interface Child {
  proc: ChildProcess;
  ledgerDir: string;
  tmp: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

let nextCase = 0;

function spawnChild(mode: string, extraEnv: Record<string, string> = {}): Child {
  const base = join(scratch, `case-${nextCase++}`);
  const ledgerDir = join(base, 'ledger');
  const tmp = join(base, 'tmp');
  mkdirSync(ledgerDir, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  const proc = spawn(process.execPath, [CHILD], {
    env: {
      ...process.env,
      CHILD_MODE: mode,
      REMOTE_BROWSER_URL: emu.url,
      REMOTE_BROWSER_TOKEN: emu.token,
      REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
      REMOTE_BROWSER_CACHE_DIR: ledgerDir,
      TMPDIR: tmp,
      DEBUG: undefined,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d) => {
    out += d;
  });
  proc.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { proc, ledgerDir, tmp, output: () => out, exited };
}

/** The child's own line once launched (a launch error also names "session <id>"). */
const LAUNCHED = /^session \S+$/m;

async function launched(child: Child): Promise<void> {
  await eventually(
    () => LAUNCHED.test(child.output()) || child.proc.exitCode !== null,
    90_000,
    'the child to launch',
  );
  if (!LAUNCHED.test(child.output())) throw new Error(`child failed: ${child.output()}`);
}

/** The create reached the service (its session exists) while its answer is still held back. */
async function createOnTheWire(child: Child): Promise<void> {
  await eventually(
    async () => child.output().includes('creating') && (await running()) === 1,
    90_000,
    'the create to be handled',
  );
  expect(child.output()).not.toMatch(/session \S+/);
  expect((await emu.admin.listFaults()).length, 'the held-back answer is still pending').toBe(0);
}

/** Bounded wait for the exit (a hang is a failure, not a slow test). */
async function exitOf(child: Child, withinMs = 30_000) {
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), withinMs);
  const result = await child.exited;
  clearTimeout(timer);
  return result;
}

/**
 * After the exit path: `settleMs` for its documented asynchronous part (the watchdog), then a
 * reap over the child's ledger. Asserts the exit path left nothing running, that the reap's
 * `ended` counts only sessions that were running, and that nothing is running afterwards.
 */
async function expectCleanAfter(child: Child, settleMs = 15_000): Promise<void> {
  await eventually(async () => (await running()) === 0, settleMs, 'the exit path').catch(
    () => undefined,
  );
  const left = await api.sessions.list({ status: 'running' });
  const leftByExitPath = left.length;
  // Read before the reap, which compacts the ledger.
  const diagnosis = leftBehind(child, left);
  const previous = process.env.REMOTE_BROWSER_CACHE_DIR;
  process.env.REMOTE_BROWSER_CACHE_DIR = child.ledgerDir;
  let reaped: Awaited<ReturnType<typeof reapSessions>>;
  try {
    reaped = await reapSessions({ api });
  } finally {
    if (previous === undefined) delete process.env.REMOTE_BROWSER_CACHE_DIR;
    else process.env.REMOTE_BROWSER_CACHE_DIR = previous;
  }
  expect(await running(), 'running after reap').toBe(0);
  expect(reaped.failed).toEqual([]);
  expect(reaped.ended.length, 'reap counts only sessions that were running').toBe(leftByExitPath);
  expect(leftByExitPath, `sessions the exit path left running\n${diagnosis}`).toBe(0);
  await rejections.expectNone();
}

/**
 * What a failed clean-up check prints: the sessions left (id and start) next to the child's
 * ledger, so a rare leak says which session it was and what the process had recorded of it.
 */
function leftBehind(child: Child, left: { id: string; created_at: string }[]): string {
  const ledger = join(child.ledgerDir, 'sessions.jsonl');
  return [
    ...left.map((s) => `left: ${s.id} created ${s.created_at}`),
    `ledger:\n${existsSync(ledger) ? readFileSync(ledger, 'utf8') : '(none)'}`,
    `output:\n${child.output()}`,
  ].join('\n');
}

/** Chromium processes whose command line points into `dir` (the emulator's temp dirs). */
function chromiumUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(dir)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('exit matrix: launchRemote in a process that is ended', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} with installExitHooks(): the session is deleted and the process still dies of ${signal}`, async () => {
      const child = spawnChild('hooks');
      await launched(child);
      expect(await running()).toBe(1);
      child.proc.kill(signal);
      expect((await exitOf(child)).signal).toBe(signal);
      await expectCleanAfter(child, 0);
    });
  }

  test(
    'SIGKILL with startWatchdog(): the watchdog deletes the session',
    LEDGER_STATES,
    async () => {
      const child = spawnChild('watchdog');
      await launched(child);
      child.proc.kill('SIGKILL');
      await exitOf(child);
      await expectCleanAfter(child);
    },
  );

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(
      `${signal} with installExitHooks() while POST /sessions is on the wire`,
      IN_FLIGHT,
      async () => {
        await emu.admin.injectFault({ ...CREATE, afterHandling: true, delayMs: 3000 });
        const child = spawnChild('hooks');
        await createOnTheWire(child);
        child.proc.kill(signal);
        await exitOf(child);
        await expectCleanAfter(child, 10_000);
      },
    );
  }

  test('SIGKILL with startWatchdog() while POST /sessions is on the wire', IN_FLIGHT, async () => {
    await emu.admin.injectFault({ ...CREATE, afterHandling: true, delayMs: 3000 });
    const child = spawnChild('watchdog');
    await createOnTheWire(child);
    child.proc.kill('SIGKILL');
    await exitOf(child);
    await expectCleanAfter(child);
    // Its watchdog looks for the lost create twice; a session the next case creates on the same
    // account and targeting before that second look would be taken for it and ended. So the next
    // case starts once this watchdog has finished (see the closing note of the wave: two
    // processes on one account can meet this in the field too).
    await eventually(
      () => processesWithEnv(`REMOTE_BROWSER_CACHE_DIR=${child.ledgerDir}`) === 0,
      60_000,
      'the watchdog to finish',
    );
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`a host-owned ${signal} handler keeps its own shutdown; the hooks still delete the session`, async () => {
      const child = spawnChild(`hooks host-${signal.toLowerCase()}`);
      await launched(child);
      child.proc.kill(signal);
      const { code } = await exitOf(child);
      expect(code, child.output()).toBe(0);
      expect(child.output()).toContain('host shutdown');
      await expectCleanAfter(child, 0);
    });
  }

  test(
    'Ctrl-C ends a process that runs the emulator and installExitHooks() together, Chromium included',
    SAME_PROCESS,
    async () => {
      const child = spawnChild('emulator hooks');
      try {
        await launched(child);
        expect(chromiumUnder(child.tmp).length).toBeGreaterThan(0);
        child.proc.kill('SIGINT');
        const { signal } = await exitOf(child, 20_000);
        expect(signal, 'the process must end on Ctrl-C (not be killed by the test)').toBe('SIGINT');
        await eventually(() => chromiumUnder(child.tmp).length === 0, 10_000, 'Chromium to end');
        await rejections.expectNone();
      } finally {
        // A child the test had to SIGKILL could not end its Chromium: do not leak it.
        for (const pid of chromiumUnder(child.tmp)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {}
        }
      }
    },
  );
});

/** The environment of a Playwright Test run on this file's emulator, with its own ledger. */
const runnerEnv = (ledgerDir: string) => ({
  REMOTE_BROWSER_URL: emu.url,
  REMOTE_BROWSER_TOKEN: emu.token,
  REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
  REMOTE_BROWSER_ACCOUNT_URL: undefined,
  REMOTE_BROWSER_API_KEY: undefined,
  REMOTE_BROWSER_CACHE_DIR: ledgerDir,
  DEBUG: undefined,
  PWDEBUG: undefined,
});

/** Below the test's own timeout, so a run that hangs fails with its output, not a bare timeout. */
const RUN_TIMEOUT_MS = 100_000;

/**
 * A terminal's Ctrl-C, pressed while a test of the inner run is in its body holding its session.
 * The spec says so itself (a mark file written after its first page loaded): counting running
 * sessions cannot tell, since with pre-warming a warm session may appear at the same moment.
 */
class CtrlCMidTest {
  readonly #mark: string;
  #problem: string | undefined = 'the Ctrl-C was never sent';

  constructor(caseDir: string) {
    this.#mark = join(caseDir, '..', 'mid-test.mark');
  }

  /** Defines `midTest()` in the spec: marks the moment and waits for the Ctrl-C. */
  get specPrelude(): string {
    return `import { writeFileSync } from 'node:fs';

// The Ctrl-C comes once the mark is written; the long timeouts only keep a slow start (a loaded
// CI machine took over 30 s) from ending the test first.
test.describe.configure({ timeout: 180_000 });
const midTest = async (page: import('@playwright/test').Page) => {
  writeFileSync(${JSON.stringify(this.#mark)}, '');
  await page.waitForTimeout(170_000);
};
`;
  }

  /** Sends SIGINT to the run's process group once the test is mid-test (and `also` holds). */
  arm(child: ChildProcess, also: () => Promise<boolean> = async () => true): void {
    void eventually(async () => existsSync(this.#mark) && (await also()), 90_000, 'mid-test')
      .then(() => {
        // A terminal's Ctrl-C signals the whole foreground process group.
        process.kill(-child.pid!, 'SIGINT');
        this.#problem = undefined;
      })
      .catch((error: Error) => {
        this.#problem = `the test never got mid-test: ${error.message}`;
        process.kill(-child.pid!, 'SIGKILL');
      });
  }

  assertSent(output: string): void {
    expect(this.#problem, output).toBeUndefined();
  }
}

/** A fresh ledger folder for one case. */
function ledgerFor(): string {
  const ledgerDir = join(scratch, `case-${nextCase++}`, 'ledger');
  mkdirSync(ledgerDir, { recursive: true });
  return ledgerDir;
}

describe('exit matrix: Playwright Test runs that are cut short', () => {
  it('a worker that calls process.exit() mid-test leaves no session running', async () => {
    const ledgerDir = ledgerFor();
    const dir = writeSuite('reliability-worker-exit', {
      'playwright.config.ts': configFile({ remote: { sessionScope: 'worker' } }),
      'a.spec.ts': `import { test } from 'remote-browser/test';

test('exits its worker', async ({ page }) => {
  await page.goto('about:blank');
  process.exit(1);
});
`,
    });
    const run = await runSuite(dir, { env: runnerEnv(ledgerDir) });
    expect(run.exitCode, run.output).toBe(1);
    expect((await emu.admin.state()).sessions, 'the test did get a session').toBe(1);
    await expectCleanAfter({ ledgerDir, output: () => run.output } as unknown as Child, 0);
  });

  it('Ctrl-C on the runner mid-test leaves no session running', async () => {
    const ledgerDir = ledgerFor();
    const ctrlC = new CtrlCMidTest(ledgerDir);
    const dir = writeSuite('reliability-runner-sigint', {
      'playwright.config.ts': configFile({ remote: { sessionScope: 'test' } }),
      'a.spec.ts': `import { test } from 'remote-browser/test';
${ctrlC.specPrelude}
test('runs long', async ({ page }) => {
  await page.goto('about:blank');
  await midTest(page);
});
`,
    });
    const run = await runSuite(dir, {
      env: runnerEnv(ledgerDir),
      timeoutMs: RUN_TIMEOUT_MS,
      onSpawn: (child) => ctrlC.arm(child),
    });
    ctrlC.assertSent(run.output);
    expect(run.output).toMatch(/interrupted/i);
    // The recording of an interrupted test is not awaited (this emulator never publishes one:
    // awaiting it held the worker for the whole recordingTimeout after the Ctrl-C).
    expect(run.tests.get('runs long')?.annotations, run.output).toContainEqual({
      type: 'remote-browser:note',
      description: expect.stringMatching(
        /run was interrupted, so the recording of session \S+ was not awaited/,
      ),
    });
    await expectCleanAfter({ ledgerDir, output: () => run.output } as unknown as Child, 15_000);
  });
});

describe('exit matrix: a session pool whose warm sessions nobody holds yet', () => {
  /** The child took one browser and the pool refilled: one in use and two warm. */
  const poolFull = (child: Child) =>
    eventually(
      async () => /session \S+/.test(child.output()) && (await running()) === 3,
      90_000,
      'one session in use and two warm',
    );

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} with installExitHooks(): the used and the warm sessions are all deleted`, async () => {
      const child = spawnChild('pool hooks');
      await poolFull(child);
      child.proc.kill(signal);
      expect((await exitOf(child)).signal).toBe(signal);
      await expectCleanAfter(child, 0);
    });
  }

  it('SIGKILL with startWatchdog(): the watchdog deletes the used and the warm sessions', async () => {
    const child = spawnChild('pool watchdog');
    await poolFull(child);
    child.proc.kill('SIGKILL');
    await exitOf(child);
    await expectCleanAfter(child);
  });

  it('SIGINT with installExitHooks() while a warming create is on the wire', async () => {
    // Every create's answer is held back after the service made the session: the pool's warm
    // creates are on the wire when the signal comes.
    await emu.admin.injectFault({ ...CREATE, afterHandling: true, delayMs: 4000, count: 10 });
    // Three creates to reconcile at once take longer than the default 5 s budget on a loaded
    // 2-core machine; the budget is the user's to set, the path is what is tested here.
    const child = spawnChild('pool hooks', { CHILD_HOOKS_TIMEOUT_MS: '20000' });
    await eventually(async () => (await running()) >= 2, 90_000, 'the warm creates handled');
    child.proc.kill('SIGINT');
    await exitOf(child);
    await expectCleanAfter(child, 10_000);
  });
});

describe('exit matrix: pre-warming in Playwright Test (sessionScope test, prewarm 1)', () => {
  const config = (extra = '') =>
    configFile({ remote: { sessionScope: 'test', prewarm: 1, recording: 'off' } }, extra);
  const clean = (ledgerDir: string, output: string, settleMs = 0) =>
    expectCleanAfter({ ledgerDir, output: () => output } as unknown as Child, settleMs);

  /**
   * The first create (the test's own) passes; the next (its successor's, warming) is handled by
   * the service but its answer is held back `ms`: that create is on the wire meanwhile.
   */
  const holdSuccessorCreate = async (ms: number) => {
    await emu.admin.injectFault({ ...CREATE, afterHandling: true });
    await emu.admin.injectFault({ ...CREATE, afterHandling: true, delayMs: ms });
  };

  it('a worker that exits mid-test while its successor is warming leaves no session running', async () => {
    await holdSuccessorCreate(15_000);
    const ledgerDir = ledgerFor();
    const dir = writeSuite('reliability-prewarm-worker-exit', {
      'playwright.config.ts': config(),
      'a.spec.ts': `import { BrowserApi } from 'remote-browser';
import { expect, test } from 'remote-browser/test';

test('exits its worker', async ({ page }) => {
  await page.goto('about:blank');
  // The successor's create reached the service (its answer is held back): exit now.
  const api = new BrowserApi();
  await expect.poll(async () => (await api.sessions.list({ status: 'running' })).length).toBe(2);
  process.exit(1);
});
test('never runs in this worker', async ({ page }) => {
  await page.goto('about:blank');
});
`,
    });
    const run = await runSuite(dir, { env: runnerEnv(ledgerDir) });
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).not.toMatch(/expect\.poll|Timeout/);
    await clean(ledgerDir, run.output);
  });

  it('Ctrl-C on the runner while a test runs and its successor is warm leaves no session running', async () => {
    const ledgerDir = ledgerFor();
    const ctrlC = new CtrlCMidTest(ledgerDir);
    const dir = writeSuite('reliability-prewarm-runner-sigint', {
      'playwright.config.ts': config(),
      'a.spec.ts': `import { test } from 'remote-browser/test';
${ctrlC.specPrelude}
test('runs long', async ({ page }) => {
  await page.goto('about:blank');
  await midTest(page);
});
test('would run next', async ({ page }) => {
  await page.goto('about:blank');
});
`,
    });
    const run = await runSuite(dir, {
      env: runnerEnv(ledgerDir),
      timeoutMs: RUN_TIMEOUT_MS,
      // prewarm 1: the test's session and its successor's warm one.
      onSpawn: (child) => ctrlC.arm(child, async () => (await running()) === 2),
    });
    ctrlC.assertSent(run.output);
    expect(run.output).toMatch(/interrupted/i);
    expect((await emu.admin.state()).sessions, 'the successor was warm').toBeGreaterThanOrEqual(2);
    await clean(ledgerDir, run.output, 15_000);
  });

  it('a test that times out while its successor is warming: the next test passes, nothing left', async () => {
    // The successor's answer comes after the test's timeout: its worker is replaced mid-create.
    // (A 3 s timeout and a 7 s hold: the run waits for the held answer, so both stay short. The
    // create starts after the test did, so its answer comes at least 4 s after the timeout.)
    await holdSuccessorCreate(7_000);
    const ledgerDir = ledgerFor();
    const dir = writeSuite('reliability-prewarm-timeout', {
      'playwright.config.ts': config('timeout: 3_000,'),
      'a.spec.ts': `import { expect, test } from 'remote-browser/test';

test('times out', async ({ page }) => {
  await page.goto('about:blank');
  await page.waitForTimeout(60_000);
});
test('passes after it', async ({ page }) => {
  await page.setContent('<title>after</title>');
  await expect(page).toHaveTitle('after');
});
`,
    });
    const run = await runSuite(dir, { env: runnerEnv(ledgerDir) });
    expect(run.tests.get('times out')?.results?.[0]?.status, run.output).toBe('timedOut');
    expect(run.tests.get('passes after it')?.results?.[0]?.status, run.output).toBe('passed');
    await clean(ledgerDir, run.output);
  });
});
