import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { reapSessions } from '../../src/launch/reap.js';
import { withEnv } from '../helpers/env.js';
import { eventually } from '../helpers/pages.js';
import { removeLedgerDir } from '../helpers/temp-dirs.js';
import { type ChildScript, runChildScript } from './child-script.js';

let emu: EmulatorHandle;
let cacheDir: string;

beforeAll(async () => {
  // No recordings: this file asserts none, and each one costs an ffmpeg encode per session.
  emu = await startEmulator({ ffmpegPath: false });
  cacheDir = mkdtempSync(join(tmpdir(), 'rb-exit-'));
});
afterAll(async () => {
  await emu?.close();
  if (cacheDir) await removeLedgerDir(cacheDir);
});

interface Child {
  proc: ChildProcess;
  sessionId: string;
  token: string;
  output: () => string;
  exited: ChildScript['exited'];
}

async function runChild(
  mode: string,
  lib: 'playwright' | 'puppeteer' = 'playwright',
): Promise<Child> {
  const account = await emu.admin.createAccount({});
  const {
    child: proc,
    output,
    exited,
  } = runChildScript('launch-child.ts', {
    CHILD_MODE: mode,
    CHILD_LIB: lib,
    REMOTE_BROWSER_URL: emu.url,
    REMOTE_BROWSER_TOKEN: account.token,
    REMOTE_BROWSER_PROXY_PASSWORD: account.proxyPassword,
    REMOTE_BROWSER_CACHE_DIR: cacheDir,
  });
  await eventually(
    () => /session (\S+)/.test(output()) || proc.exitCode !== null,
    60_000,
    'the child to launch',
  );
  const sessionId = /session (\S+)/.exec(output())?.[1];
  if (!sessionId) throw new Error(`child failed: ${output()}`);
  return { proc, sessionId, token: account.token, output, exited };
}

async function isRunning({
  sessionId,
  token,
}: Pick<Child, 'sessionId' | 'token'>): Promise<boolean> {
  const api = new BrowserApi({ baseUrl: emu.url, token });
  try {
    return (await api.sessions.retrieve(sessionId)).status === 'running';
  } finally {
    await api.close();
  }
}

describe('process exit paths', () => {
  it('installExitHooks deletes the session on SIGTERM and the process still dies of SIGTERM', async () => {
    const run = await runChild('hooks');
    expect(await isRunning(run)).toBe(true);
    run.proc.kill('SIGTERM');
    const { signal } = await run.exited;
    expect(signal).toBe('SIGTERM');
    expect(await isRunning(run)).toBe(false);
  });

  it('keeps the host its own SIGINT shutdown while deleting the session', async () => {
    const run = await runChild('hooks host-sigint');
    run.proc.kill('SIGINT');
    const { code } = await run.exited;
    expect(code).toBe(0);
    expect(run.output()).toContain('host shutdown');
    expect(await isRunning(run)).toBe(false);
  });

  it('Ctrl-C ends a process that runs the emulator and installExitHooks together', async () => {
    const run = await runChild('emulator hooks');
    run.proc.kill('SIGINT');
    // Before the fix each handler took the other for the host's and the process never exited.
    const hung = new Promise<'hung'>((resolve) =>
      setTimeout(() => resolve('hung'), 60_000).unref(),
    );
    const outcome = await Promise.race([run.exited, hung]);
    if (outcome === 'hung') run.proc.kill('SIGKILL');
    expect(outcome).toEqual({ code: null, signal: 'SIGINT' });
  });

  it('the watchdog deletes the sessions of a parent that was SIGKILLed', async () => {
    const run = await runChild('watchdog');
    run.proc.kill('SIGKILL');
    await run.exited;
    await eventually(
      async () => !(await isRunning(run)),
      15_000,
      'the watchdog to delete the session',
    );
  });

  it('reapSessions ends what a SIGKILLed run without hooks left behind, from the ledger', async () => {
    const run = await runChild('');
    run.proc.kill('SIGKILL');
    await run.exited;
    expect(await isRunning(run)).toBe(true);
    const api = new BrowserApi({ baseUrl: emu.url, token: run.token });
    try {
      const result = await withEnv({ REMOTE_BROWSER_CACHE_DIR: cacheDir }, () =>
        reapSessions({ api }),
      );
      expect(result.ended).toContain(run.sessionId);
    } finally {
      await api.close();
    }
    expect(await isRunning(run)).toBe(false);
  });

  it('Puppeteer: installExitHooks deletes the session on SIGTERM', async () => {
    const run = await runChild('hooks', 'puppeteer');
    run.proc.kill('SIGTERM');
    expect((await run.exited).signal).toBe('SIGTERM');
    expect(await isRunning(run)).toBe(false);
  });

  it('Puppeteer: the watchdog deletes the sessions of a parent that was SIGKILLed', async () => {
    const run = await runChild('watchdog', 'puppeteer');
    run.proc.kill('SIGKILL');
    await run.exited;
    await eventually(
      async () => !(await isRunning(run)),
      15_000,
      'the watchdog to delete the session',
    );
  });
});
