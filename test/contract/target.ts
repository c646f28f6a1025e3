/**
 * Where the contract suites run: the emulator by default, the real service when
 * `REMOTE_BROWSER_CONTRACT=real` (with REMOTE_BROWSER_URL, REMOTE_BROWSER_TOKEN and
 * REMOTE_BROWSER_PROXY_PASSWORD set). What needs the emulator's admin API (a second account,
 * the clock, faults, small limits) is skipped on the real service with a printed reason.
 */
import { BrowserApi, type BrowserApiOptions } from '../../src/browser-api/index.js';
import type { AdminClient, EmulatorHandle } from '../../src/emulator/index.js';

export const REAL = process.env.REMOTE_BROWSER_CONTRACT === 'real';

export interface Credentials {
  token: string;
  proxyPassword: string;
}

export interface ContractTarget {
  kind: 'emulator' | 'real';
  /** Service origin (no API path). */
  baseUrl: string;
  credentials: Credentials;
  /** Only on the emulator. */
  admin: AdminClient | undefined;
  /** A client for the default account, or for `credentials`; closed by `close()`. */
  api(options?: BrowserApiOptions & { credentials?: Credentials }): BrowserApi;
  /** A fresh account (emulator only): for other-account 404s and small limits. */
  newAccount(limits?: {
    concurrentSessions?: number;
    profiles?: number;
  }): Promise<Credentials & { accountId: string }>;
  close(): Promise<void>;
}

export async function startTarget(): Promise<ContractTarget> {
  const clients: BrowserApi[] = [];
  let emulator: EmulatorHandle | undefined;
  let baseUrl: string;
  let credentials: Credentials;
  if (REAL) {
    const { REMOTE_BROWSER_URL, REMOTE_BROWSER_TOKEN, REMOTE_BROWSER_PROXY_PASSWORD } = process.env;
    if (!REMOTE_BROWSER_URL || !REMOTE_BROWSER_TOKEN || !REMOTE_BROWSER_PROXY_PASSWORD) {
      throw new Error(
        'REMOTE_BROWSER_CONTRACT=real needs REMOTE_BROWSER_URL, REMOTE_BROWSER_TOKEN and REMOTE_BROWSER_PROXY_PASSWORD',
      );
    }
    baseUrl = REMOTE_BROWSER_URL;
    credentials = { token: REMOTE_BROWSER_TOKEN, proxyPassword: REMOTE_BROWSER_PROXY_PASSWORD };
  } else {
    // Loaded only here, so a run against the real service needs no Chromium.
    const { startEmulator } = await import('../../src/emulator/index.js');
    emulator = await startEmulator({ recordingPublicationDelayMs: 500 });
    baseUrl = emulator.browserUrl;
    credentials = { token: emulator.token, proxyPassword: emulator.proxyPassword };
  }
  return {
    kind: REAL ? 'real' : 'emulator',
    baseUrl,
    credentials,
    admin: emulator?.admin,
    api(options = {}) {
      const { credentials: who = credentials, ...rest } = options;
      const api = new BrowserApi({
        baseUrl,
        token: who.token,
        proxyPassword: who.proxyPassword,
        retry: { baseDelayMs: 50, maxDelayMs: 200 },
        ...rest,
      });
      clients.push(api);
      return api;
    },
    async newAccount(limits) {
      if (!emulator) throw new Error('newAccount() needs the emulator');
      const account = await emulator.admin.createAccount(limits ? { limits } : {});
      return {
        accountId: account.accountId,
        token: account.token,
        proxyPassword: account.proxyPassword,
      };
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await emulator?.close();
    },
  };
}

/**
 * `it` on the emulator; on the real service a skipped test whose reason is printed, so a run
 * there says what it did not prove.
 */
export function emulatorOnly(reason: string): boolean {
  if (REAL) console.warn(`[contract] skipped on the real service: ${reason}`);
  return REAL;
}
