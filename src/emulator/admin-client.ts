/** A small typed client of the admin API, handed out on the `startEmulator()` handle. */
import { Agent, fetch as undiciFetch } from 'undici';
import type { NewAccount as NewAccountInput } from './browser-service/store.js';
import type { AccountLimits } from './options.js';
import type { Fault, FaultSpec } from './server/faults.js';

export type { NewAccountInput };

export interface CreatedAccount {
  accountId: string;
  token: string;
  proxyPassword: string;
  apiKey: string;
}

export interface AccountView {
  accountId: string;
  purchased: boolean;
  balance: number;
  limits: AccountLimits;
  /** Most of its sessions running at once since it was made (or the last reset): a limit check. */
  peakRunningSessions: number;
}

export interface EmulatorState {
  runningSessions: number;
  chromiumProcesses: number;
  sessions: number;
  profiles: number;
  accounts: number;
  pendingFaults: number;
  /** Connection cuts made (admin `cutConnections()` and the flaky mode), each counting one session. */
  connectionCuts: number;
  /** The flaky mode's mean interval in ms, or null when off. */
  flakyMeanIntervalMs: number | null;
  recordingsAvailable: boolean;
  recordingsOffReason?: string;
  version: string;
  now: string;
}

export interface AdminClient {
  createAccount(input?: NewAccountInput): Promise<CreatedAccount>;
  /** An account's purchase state, balance, limits and peak of concurrent sessions. */
  account(accountId: string): Promise<AccountView>;
  /** Changes an account's limits (or purchase state, balance). */
  updateAccount(accountId: string, input: NewAccountInput): Promise<void>;
  /** A fresh browser token for an account (what the dashboard shows after the old one expired). */
  issueToken(accountId: string): Promise<string>;
  /** Moves the emulator clock forward; resolves with the new emulator time (ISO). */
  advanceClock(ms: number): Promise<string>;
  injectFault(fault: FaultSpec): Promise<Fault>;
  listFaults(): Promise<Fault[]>;
  clearFaults(): Promise<void>;
  /**
   * An ended session of the account (default: the default account) with one published
   * recording of `sizeBytes` (zeros, stored sparse): for download benchmarks and tests.
   */
  addRecording(input: {
    sizeBytes: number;
    accountId?: string;
  }): Promise<{ sessionId: string; recordingId: string }>;
  /**
   * Cuts the clients' websockets (cdp_url and debugger_address) of one running session, or of
   * every session when no id is given, as a network fault would; the sessions and their
   * Chromium keep running. Resolves with how many sessions and sockets were cut; rejects (404)
   * for a session that is not running.
   */
  cutConnections(sessionId?: string): Promise<{ sessions: number; sockets: number }>;
  /**
   * Turns the "flaky network" mode on (a cut of one random session's connections at random
   * intervals of this mean, in ms of real time) or off (`null`).
   */
  setFlaky(meanIntervalMs: number | null): Promise<void>;
  state(): Promise<EmulatorState>;
  /**
   * Puts `host` on the emulator's internet, served by `target` (an http:// or https:// origin,
   * e.g. a test's own server): a sandboxed session's browser can then load `http(s)://host/`.
   * Resolves with every published host and its target.
   */
  publish(host: string, target: string): Promise<Record<string, string>>;
  /** Ends every session and forgets everything but the default account; the clock goes back to real time. */
  reset(): Promise<void>;
}

/** `ca`: the PEM to trust for an https origin (the emulator's own CA). */
export function createAdminClient(origin: string, ca?: string): AdminClient {
  const dispatcher = ca ? new Agent({ connect: { ca } }) : undefined;
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await (dispatcher ? undiciFetch : fetch)(`${origin}/_emulator${path}`, {
      ...(dispatcher ? { dispatcher } : {}),
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as T & { error?: string };
    if (!response.ok) {
      throw new Error(`emulator admin ${method} ${path}: ${response.status} ${json.error ?? ''}`);
    }
    return json;
  };
  /** A call whose answer the client does not hand back. */
  const act = async (method: string, path: string, body?: unknown): Promise<void> => {
    await call(method, path, body);
  };
  return {
    createAccount: (input = {}) => call('POST', '/accounts', input),
    account: (accountId) => call('GET', `/accounts/${encodeURIComponent(accountId)}`),
    updateAccount: (accountId, input) =>
      act('PATCH', `/accounts/${encodeURIComponent(accountId)}`, input),
    issueToken: async (accountId) =>
      (await call<{ token: string }>('POST', `/accounts/${encodeURIComponent(accountId)}/token`))
        .token,
    advanceClock: async (ms) =>
      (await call<{ now: string }>('POST', '/clock', { advanceMs: ms })).now,
    injectFault: async (fault) => (await call<{ fault: Fault }>('POST', '/faults', fault)).fault,
    listFaults: async () => (await call<{ faults: Fault[] }>('GET', '/faults')).faults,
    clearFaults: () => act('DELETE', '/faults'),
    addRecording: (input) => call('POST', '/recordings', input),
    cutConnections: (sessionId) =>
      call('POST', '/cut', sessionId === undefined ? {} : { sessionId }),
    setFlaky: (meanIntervalMs) => act('POST', '/flaky', { meanIntervalMs }),
    state: () => call('GET', '/state'),
    publish: async (host, target) =>
      (await call<{ sites: Record<string, string> }>('POST', '/internet', { host, target })).sites,
    reset: () => act('POST', '/reset'),
  };
}
