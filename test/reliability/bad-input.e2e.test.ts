/**
 * Every row of the bad-input table (bad-input-table.ts) must fail with the library's typed
 * validation error naming the field, before any request: a counting proxy in front of the
 * emulator is the only origin the clients know, and it must see nothing. Rows whose fix has
 * not landed yet run as `it.fails` (KNOWN_GAPS) so they stay visible.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { launchRemote } from '../../src/playwright/index.js';
import { BAD_INPUTS, type Target } from './bad-input-table.js';
import { type CountingProxy, startCountingProxy } from './counting-proxy.js';
import { privateLedger, RejectionWatch } from './helpers.js';

/** The typed errors that mean "your input is wrong; nothing was sent". */
const VALIDATION_ERRORS = [
  'RequestValidationError',
  'ConfigurationError',
  'WebhookVerificationError',
];

/**
 * Rows known to fail until a named fix lands on main, keyed `<call>(<input>)`, each with the
 * reason: they run as `it.fails`, so the gap stays visible and its fix flips it. None now.
 */
const KNOWN_GAPS: Record<string, string> = {};

let emu: EmulatorHandle;
let proxy: CountingProxy;
let target: Target;
let ledger: ReturnType<typeof privateLedger>;
const rejections = new RejectionWatch();

beforeAll(async () => {
  rejections.start();
  ledger = privateLedger('rb-bad-input-');
  emu = await startEmulator({ ffmpegPath: false });
  proxy = await startCountingProxy(emu.url);
  target = {
    url: proxy.url,
    token: emu.token,
    proxyPassword: emu.proxyPassword,
    apiKey: emu.apiKey,
  };
});
afterAll(async () => {
  rejections.stop();
  await proxy?.close();
  await emu?.close();
  ledger?.restore();
});

describe('the counting proxy in front of the emulator (control)', () => {
  it('sees the requests of a valid launch, which succeeds through it', async () => {
    proxy.reset();
    const browser = await launchRemote({
      baseUrl: target.url,
      token: target.token,
      proxyPassword: target.proxyPassword,
    });
    await browser.close();
    expect(proxy.seen).toEqual(
      expect.arrayContaining(['POST /api/v2/browser/sessions', expect.stringMatching(/^DELETE /)]),
    );
  });

  it('sees a valid BrowserApi call', async () => {
    proxy.reset();
    const api = new BrowserApi({ baseUrl: target.url, token: target.token });
    await api.sessions.list({ limit: 5 });
    await api.close();
    expect(proxy.seen).toEqual(['GET /api/v2/browser/sessions']);
  });
});

describe('bad input: a typed validation error naming the field, and no request', () => {
  beforeEach(async () => {
    // A launch that lets bad input through must not start a Chromium for nothing.
    await emu.admin.injectFault({
      method: 'POST',
      path: '/api/v2/browser/sessions',
      status: 503,
      count: 1000,
    });
    proxy.reset();
  });
  afterEach(async () => {
    await emu.admin.reset();
  });

  for (const row of BAD_INPUTS) {
    const key = `${row.call}(${row.input})`;
    const gap = KNOWN_GAPS[key];
    const title = `${row.call}(${row.input}) names ${row.field.join(' or ')}${row.seed ? ' [issue 11]' : ''}`;
    (gap ? it.fails : it)(gap ? `${title} [waiting for: ${gap}]` : title, async () => {
      let result: unknown;
      let error: unknown;
      try {
        result = await row.run(target);
      } catch (e) {
        error = e;
      }
      // Whatever slipped through is closed again (a Browser, a context, a client).
      const closable = result as { close?: () => Promise<unknown> } | undefined;
      if (typeof closable?.close === 'function') await closable.close().catch(() => undefined);

      expect(proxy.seen, 'requests that reached the emulator').toEqual([]);
      expect(error, 'the call was accepted').toBeDefined();
      const e = error as Error & { field?: string };
      expect(VALIDATION_ERRORS, `${e?.name}: ${e?.message}`).toContain(e?.name);
      const named = row.field.some(
        (name) => String(e.field ?? '').includes(name) || e.message.includes(name),
      );
      expect(named, `the error names ${row.field.join(' or ')}: ${e.message}`).toBe(true);
      await rejections.expectNone();
    });
  }
});
