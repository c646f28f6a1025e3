/**
 * Where the account contract suite runs: the emulator by default, the real service when
 * `REMOTE_BROWSER_CONTRACT=real` (with REMOTE_BROWSER_ACCOUNT_URL and REMOTE_BROWSER_API_KEY).
 * What needs the emulator's admin API (other accounts, the clock, pushed notifications,
 * webhook deliveries to a loopback receiver) is skipped on the real service with a reason.
 */
import { AccountApi, type AccountApiOptions } from '../../../src/account-api/index.js';
import type { EmulatorHandle } from '../../../src/emulator/index.js';
import { Transport } from '../../../src/http/transport.js';
import { REAL } from '../target.js';

export interface AccountTarget {
  kind: 'emulator' | 'real';
  baseUrl: string;
  apiKey: string;
  emulator: EmulatorHandle | undefined;
  /** A client for `apiKey` (default: the target's key); closed by `close()`. */
  api(options?: AccountApiOptions): AccountApi;
  /** No client-side checks, limiter or retries: proves the service's own answers. */
  raw(apiKey?: string, authorization?: string): Transport;
  /** Emulator only: a new account; `purchased` defaults to true. */
  newAccount(input?: { purchased?: boolean; balance?: number }): Promise<{
    accountId: string;
    apiKey: string;
  }>;
  /** Emulator only: POST to an `/_emulator/...` admin route. */
  admin<T = any>(path: string, body?: unknown): Promise<T>;
  /** Emulator only: emulator time in ms. */
  now(): Promise<number>;
  close(): Promise<void>;
}

export async function startAccountTarget(): Promise<AccountTarget> {
  let emulator: EmulatorHandle | undefined;
  let baseUrl: string;
  let apiKey: string;
  if (REAL) {
    const { REMOTE_BROWSER_ACCOUNT_URL, REMOTE_BROWSER_API_KEY } = process.env;
    if (!REMOTE_BROWSER_ACCOUNT_URL || !REMOTE_BROWSER_API_KEY) {
      throw new Error(
        'REMOTE_BROWSER_CONTRACT=real needs REMOTE_BROWSER_ACCOUNT_URL and REMOTE_BROWSER_API_KEY',
      );
    }
    baseUrl = REMOTE_BROWSER_ACCOUNT_URL;
    apiKey = REMOTE_BROWSER_API_KEY;
  } else {
    const { startEmulator } = await import('../../../src/emulator/index.js');
    emulator = await startEmulator({ account: { seed: 7, delay: { minMs: 200, maxMs: 800 } } });
    baseUrl = emulator.accountUrl;
    apiKey = emulator.apiKey;
  }
  const closers: Array<() => Promise<void>> = [];
  const needEmulator = () => {
    if (!emulator) throw new Error('needs the emulator');
    return emulator;
  };
  const admin = async (path: string, body?: unknown) => {
    const response = await fetch(`${needEmulator().url}/_emulator${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`admin ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    kind: REAL ? 'real' : 'emulator',
    baseUrl,
    apiKey,
    emulator,
    api(options = {}) {
      const api = new AccountApi({ baseUrl, apiKey, retry: { baseDelayMs: 50 }, ...options });
      closers.push(() => api.close());
      return api;
    },
    raw(key = apiKey, authorization = `x-api-key ${key}`) {
      const transport = new Transport({
        service: 'account',
        origin: baseUrl,
        apiPath: '/api/v2/base',
        authorization,
        retry: { retries: 0 },
      });
      closers.push(() => transport.close());
      return transport;
    },
    async newAccount(input = {}) {
      const created = await needEmulator().admin.createAccount({ purchased: true, ...input });
      return { accountId: created.accountId, apiKey: created.apiKey };
    },
    admin,
    async now() {
      return Date.parse((await admin('/clock')).now);
    },
    async close() {
      for (const close of closers) await close().catch(() => undefined);
      await emulator?.close();
    },
  };
}
