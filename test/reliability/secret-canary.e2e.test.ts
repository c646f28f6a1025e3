/**
 * The secret canary: every credential kind is planted with a unique value (the account's real
 * token, proxy password and API key, webhook secrets, each session's cdp_url access token, and
 * invalid canary values that can only end up in an error), then errors (401, 404, connection
 * refused, validation), DEBUG logs, util.inspect/JSON output, the built CLI's output, a
 * Playwright Test report (html + json, traces on, a failing test) and the launch ledger are
 * scanned, every byte, for any of them.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inspect, promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountApi, verifyWebhook } from '../../src/account-api/index.js';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { setDebugSink } from '../../src/http/debug.js';
import { launchRemote as launchPlaywright, sessionOf } from '../../src/playwright/index.js';
import { launchRemote as launchPuppeteer } from '../../src/puppeteer/index.js';
import { configFile } from '../fixture/harness.js';
import {
  everythingWritten,
  ROOT_DIR,
  runSuite,
  SessionWatcher,
  writeSuite,
} from '../fixture/inline-suite.js';
import { privateLedger, RejectionWatch } from './helpers.js';

const run = promisify(execFile);
const CLI = join(ROOT_DIR, 'dist/cli.js');

/** Planted values that are never valid: they can only reach output through an error path. */
const CANARY = {
  token: 'CANARY-browser-token-7f3a91c2e5',
  proxyPassword: 'CANARY-proxy-password-4b8d20e6',
  apiKey: 'CANARY-api-key-9c1e73a0d4',
  webhookSecret: `whsec_${Buffer.from('CANARY-webhook-secret-2a6f').toString('base64')}`,
};

let emu: EmulatorHandle;
let account: { token: string; proxyPassword: string; apiKey: string };
let ledger: ReturnType<typeof privateLedger>;
const emulatorLog: string[] = [];
const rejections = new RejectionWatch();
/** Every secret planted or handed out so far, by kind. */
const secrets = new Map<string, string>();

function plant(kind: string, value: string | undefined | null): void {
  if (value) secrets.set(`${kind} (${value.slice(0, 6)}…)`, value);
}

/** The secrets found in `text`, by kind (empty when clean). */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const [kind, value] of secrets) {
    if (text.includes(value) || text.includes(encodeURIComponent(value))) found.push(kind);
  }
  return found;
}

/** The scan can fail: every planted value is a real secret and is found when present. */
function expectScannerSees(): void {
  for (const [kind, value] of secrets) {
    expect(value, kind).not.toMatch(/REDACTED|\*\*\*/);
    expect(value.length, kind).toBeGreaterThanOrEqual(8);
    expect(leaks(`before ${value} after`), kind).toEqual([kind]);
  }
}

function expectClean(where: string, text: string): void {
  expectScannerSees();
  expect(text.length, `${where}: nothing was captured`).toBeGreaterThan(0);
  expect(leaks(text), `secrets found in ${where}`).toEqual([]);
}

/** Everything about an error a user can print or log. */
function printed(error: unknown): string {
  const e = error as Error;
  return [
    String(e),
    e?.message,
    e?.stack,
    inspect(e, { depth: 10 }),
    JSON.stringify(e),
    inspect((e as { cause?: unknown })?.cause, { depth: 10 }),
  ].join('\n');
}

/** Runs `fn` with DEBUG on, collecting debug lines and anything written to stdout/stderr. */
async function captured(fn: () => Promise<void>): Promise<string> {
  const out: string[] = [];
  const previousDebug = process.env.DEBUG;
  process.env.DEBUG = 'remote-browser:*';
  const previousSink = setDebugSink((line) => void out.push(line));
  const writes = [process.stdout.write, process.stderr.write] as const;
  const tap = (original: typeof process.stdout.write) =>
    ((chunk: unknown, ...rest: unknown[]) => {
      out.push(String(chunk));
      return (original as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
    }) as typeof process.stdout.write;
  process.stdout.write = tap(writes[0]);
  process.stderr.write = tap(writes[1]);
  try {
    await fn();
  } finally {
    [process.stdout.write, process.stderr.write] = writes;
    setDebugSink(previousSink);
    if (previousDebug === undefined) delete process.env.DEBUG;
    else process.env.DEBUG = previousDebug;
  }
  return out.join('\n');
}

async function failureOf(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/** The access token inside a running session's cdp_url (read with a side client). */
async function plantCdpToken(sessionId: string): Promise<void> {
  const api = new BrowserApi({ baseUrl: emu.url, token: account.token });
  try {
    const session = await api.sessions.retrieve(sessionId);
    plant('cdp_url access token', new URL(session.cdp_url ?? 'ws://x').searchParams.get('token'));
  } finally {
    await api.close();
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

beforeAll(async () => {
  rejections.start();
  ledger = privateLedger('rb-canary-');
  emu = await startEmulator({ ffmpegPath: false, logger: (_l, m) => void emulatorLog.push(m) });
  account = await emu.admin.createAccount({});
  plant('browser token', account.token);
  plant('proxy password', account.proxyPassword);
  plant('API key', account.apiKey);
  for (const [kind, value] of Object.entries(CANARY)) plant(`canary ${kind}`, value);
});
afterAll(async () => {
  rejections.stop();
  await emu?.close();
  ledger?.restore();
});

describe('secret canary', () => {
  it('errors (401, 404, refused, validation, failed connects), inspect and DEBUG logs carry no secret', async () => {
    const texts: string[] = [];
    const logs = await captured(async () => {
      const wrong = new BrowserApi({
        baseUrl: emu.url,
        token: CANARY.token,
        proxyPassword: CANARY.proxyPassword,
      });
      texts.push(printed(await failureOf(() => wrong.sessions.list())), inspect(wrong));
      await wrong.close();

      const refused = new BrowserApi({
        baseUrl: 'http://127.0.0.1:9',
        token: CANARY.token,
        retry: { retries: 0 },
      });
      texts.push(printed(await failureOf(() => refused.sessions.list())));
      await refused.close();

      const api = new BrowserApi({
        baseUrl: emu.url,
        token: account.token,
        proxyPassword: account.proxyPassword,
      });
      texts.push(printed(await failureOf(() => api.sessions.retrieve('no-such-session'))));
      texts.push(
        printed(
          await failureOf(() =>
            api.sessions.create({ protocol: 'ftp' as never, proxy_password: CANARY.proxyPassword }),
          ),
        ),
      );
      const created = await api.sessions.create({});
      await plantCdpToken(created.id);
      texts.push(
        inspect(created, { depth: 10 }),
        JSON.stringify(created),
        inspect(api, { depth: 4 }),
      );
      texts.push(inspect(await api.sessions.connection(created.id), { depth: 10 }));
      await api.sessions.end(created.id);
      await api.close();

      // A launch, and a launch whose CDP connect is refused (the error would carry the cdp_url).
      const browser = await launchPlaywright({
        baseUrl: emu.url,
        token: account.token,
        proxyPassword: account.proxyPassword,
      });
      await plantCdpToken(sessionOf(browser).id);
      texts.push(inspect(sessionOf(browser), { depth: 10 }));
      await browser.close();
      for (const launch of [launchPlaywright, launchPuppeteer]) {
        await emu.admin.injectFault({ path: '/cdp/*', status: 502 });
        const before = (await emu.admin.state()).sessions;
        texts.push(
          printed(
            await failureOf(() =>
              launch({
                baseUrl: emu.url,
                token: account.token,
                proxyPassword: account.proxyPassword,
              }),
            ),
          ),
        );
        expect((await emu.admin.state()).sessions).toBe(before + 1);
      }

      const accountWrong = new AccountApi({ baseUrl: emu.url, apiKey: CANARY.apiKey });
      texts.push(printed(await failureOf(() => accountWrong.balance())), inspect(accountWrong));
      await accountWrong.close();
      const acct = new AccountApi({ baseUrl: emu.url, apiKey: account.apiKey });
      const [eventType] = await acct.webhooks.eventTypes();
      const hook = await acct.webhooks.create({
        url: 'https://hooks.example/canary',
        events: [eventType!.type],
      });
      plant('webhook secret', hook.secret);
      const rotated = await acct.webhooks.rotateSecret(String((hook as { id?: unknown }).id ?? ''));
      plant('rotated webhook secret', rotated.secret);
      texts.push(
        inspect(hook, { depth: 10 }),
        JSON.stringify(hook),
        inspect(rotated),
        JSON.stringify(rotated),
      );
      texts.push(
        printed(
          await failureOf(async () =>
            verifyWebhook(
              '{"type":"credits.low"}',
              { 'webhook-id': 'm', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
              {
                secrets: [CANARY.webhookSecret, hook.secret],
              },
            ),
          ),
        ),
      );
      await acct.close();
    });
    // The secrets handed out during the run are planted by now: scan everything at the end.
    expectClean('errors and inspect output', texts.join('\n'));
    expectClean('DEBUG=remote-browser:* logs and stdout/stderr', logs);
    expect(logs).toMatch(/remote-browser:http/);
    await rejections.expectNone();
  });

  it('the built CLI prints no secret, on success or failure, with DEBUG on', async () => {
    const cli = async (args: string[], env: Record<string, string>) => {
      const result = await run(process.execPath, [CLI, ...args], {
        env: {
          ...process.env,
          DEBUG: 'remote-browser:*',
          REMOTE_BROWSER_CACHE_DIR: ledger.dir,
          ...env,
        },
      }).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
      return `${result.stdout ?? ''}\n${result.stderr ?? ''}`;
    };
    const good = {
      REMOTE_BROWSER_URL: emu.url,
      REMOTE_BROWSER_ACCOUNT_URL: emu.url,
      REMOTE_BROWSER_TOKEN: account.token,
      REMOTE_BROWSER_PROXY_PASSWORD: account.proxyPassword,
      REMOTE_BROWSER_API_KEY: account.apiKey,
    };
    const wrong = {
      ...good,
      REMOTE_BROWSER_TOKEN: CANARY.token,
      REMOTE_BROWSER_PROXY_PASSWORD: CANARY.proxyPassword,
      REMOTE_BROWSER_API_KEY: CANARY.apiKey,
    };
    const outputs: string[] = [];
    outputs.push(await cli(['sessions', 'list'], wrong));
    outputs.push(await cli(['sessions', 'create', '--json'], wrong));
    outputs.push(await cli(['balance'], wrong));
    outputs.push(
      await cli(['sessions', 'list', '--json'], {
        ...good,
        REMOTE_BROWSER_URL: 'http://127.0.0.1:9',
      }),
    );
    const created = await cli(['sessions', 'create', '--json'], good);
    const id = /[0-9a-f]{8}-[0-9a-f-]{27}/.exec(created)?.[0];
    expect(id, created).toBeDefined();
    await plantCdpToken(id!);
    outputs.push(created);
    outputs.push(await cli(['sessions', 'get', id!, '--json'], good));
    outputs.push(await cli(['sessions', 'end', id!], good));
    outputs.push(
      await cli(
        ['webhooks', 'create', 'https://hooks.example/cli', '--event', 'credits.low', '--json'],
        good,
      ),
    );
    outputs.push(await cli(['webhooks', 'list', '--json'], good));
    outputs.push(await cli(['balance', '--json'], good));
    expectClean('CLI output', outputs.join('\n'));
    expect(outputs.join('\n')).toMatch(/remote-browser:http/);
  });

  it('a Playwright Test report (html + json, traces on, a failing test) carries no secret', async () => {
    const dir = writeSuite('reliability-canary', {
      'playwright.config.ts': configFile({
        trace: 'on',
        screenshot: 'on',
        // Recordings are off in this emulator: the fixture must not wait for one.
        remote: { sessionScope: 'test', recording: 'off' },
      }),
      'a.spec.ts': `import { expect, test } from 'remote-browser/test';

test('passes', async ({ page }) => {
  await page.goto('about:blank');
});

test('fails on purpose', async ({ page }) => {
  await page.setContent('<title>Canary</title><h1>canary</h1>');
  expect(await page.title()).toBe('Not the title');
});
`,
    });
    const api = new BrowserApi({ baseUrl: emu.url, token: account.token });
    const watcher = new SessionWatcher(api).start();
    const result = await runSuite(dir, {
      args: ['--reporter=json,html'],
      timeoutMs: 280_000,
      env: {
        REMOTE_BROWSER_URL: emu.url,
        REMOTE_BROWSER_TOKEN: account.token,
        REMOTE_BROWSER_PROXY_PASSWORD: account.proxyPassword,
        REMOTE_BROWSER_ACCOUNT_URL: emu.url,
        REMOTE_BROWSER_API_KEY: account.apiKey,
        REMOTE_BROWSER_CACHE_DIR: ledger.dir,
        PLAYWRIGHT_HTML_OUTPUT_DIR: join(dir, 'html-report'),
        PLAYWRIGHT_HTML_OPEN: 'never',
        DEBUG: 'remote-browser:*',
      },
    });
    await watcher.stop();
    await api.close();
    for (const token of watcher.cdpTokens) plant('cdp_url access token (test run)', token);
    expect(result.exitCode, result.output).toBe(1);
    expect(watcher.cdpTokens.size, 'the run used sessions').toBeGreaterThan(0);
    const files = filesUnder(dir);
    expect(
      files.some((f) => f.endsWith('.zip')),
      'traces were written',
    ).toBe(true);
    expect(
      files.some((f) => f.endsWith('index.html')),
      'the html report was written',
    ).toBe(true);
    expectClean('the Playwright Test run (output, json, html, traces)', everythingWritten(result));
  }, 300_000);

  it('the launch ledger and the emulator log hold no secret', () => {
    const files = filesUnder(ledger.dir);
    expect(files.length, 'the ledger was written').toBeGreaterThan(0);
    expectClean('the ledger', files.map((f) => readFileSync(f, 'latin1')).join('\n'));
    expectClean("the emulator's log", emulatorLog.join('\n'));
  });
});
