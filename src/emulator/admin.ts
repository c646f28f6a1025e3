/**
 * The admin API under `/_emulator`: accounts, clock, faults, synthetic recordings, state, reset. It has no auth: the
 * server binds loopback, and these routes exist only in the emulator.
 */
import { z } from 'zod';
import { VERSION } from '../version.js';
import type { Account } from './browser-service/model.js';
import type { BrowserService } from './browser-service/service.js';
import type { Store } from './browser-service/store.js';
import type { EmulatorClock } from './clock.js';
import { type Internet, siteIssue } from './network/internet.js';
import { accountLimitsShape } from './options.js';
import type { BrowserRuntime } from './runtime/index.js';
import { type FaultRegistry, faultSpecSchema } from './server/faults.js';
import { badRequest, notFound } from './server/http-error.js';
import type { RouteModule } from './server/router.js';
import { parseBody } from './server/wire.js';

/** What the admin API reads and moves: the state, clock, faults, runtime. */
export interface AdminDeps {
  store: Store;
  clock: EmulatorClock;
  faults: FaultRegistry;
  runtime: BrowserRuntime;
  /** The account `startEmulator()` hands out; kept across `POST /_emulator/reset`. */
  defaultAccountId: string;
  /** The hosts a session's exit can reach (`POST /_emulator/internet` publishes one). */
  internet: Internet;
  /** Synthetic recordings; cuts of clients' websockets, sessions kept; the flaky mode. */
  browser: Pick<BrowserService, 'addSyntheticRecording' | 'cutConnections' | 'flaky' | 'cutsMade'>;
}

export const ADMIN_PREFIX = '/_emulator';

const accountSchema = z.object({
  purchased: z.boolean().optional(),
  balance: z.number().min(0).optional(),
  limits: z.object(accountLimitsShape).partial().optional(),
});

const cutSchema = z.object({ sessionId: z.string().min(1).optional() });
/** `null` (read as omitted) turns the mode off. */
const flakySchema = z.object({ meanIntervalMs: z.number().positive().finite().optional() });

const clockSchema = z.object({ advanceMs: z.number().min(0) });

/** Up to 16 GiB: sparse, so the size costs no disk. */
const syntheticRecordingSchema = z.object({
  sizeBytes: z
    .number()
    .int()
    .min(0)
    .max(16 * 1024 ** 3),
  accountId: z.string().optional(),
});

function accountOf(ctx: AdminDeps, id: string): Account {
  const account = ctx.store.accounts.get(id);
  if (!account) throw notFound('Account');
  return account;
}

const accountView = (account: Account) => ({
  accountId: account.id,
  purchased: account.purchased,
  balance: account.balance,
  limits: account.limits,
  peakRunningSessions: account.peakRunningSessions,
});

export function emulatorState(ctx: AdminDeps) {
  const { runtime, store, clock } = ctx;
  return {
    runningSessions: store.runningSessions().length,
    chromiumProcesses: runtime.liveProcessCount(),
    sessions: store.sessions.size,
    profiles: store.profiles.size,
    accounts: store.accounts.size,
    pendingFaults: ctx.faults.list().length,
    connectionCuts: ctx.browser.cutsMade(),
    flakyMeanIntervalMs: ctx.browser.flaky.meanIntervalMs ?? null,
    recordingsAvailable: runtime.recordingsAvailable,
    ...(runtime.recordingsOffReason ? { recordingsOffReason: runtime.recordingsOffReason } : {}),
    version: VERSION,
    now: clock.nowIso(),
  };
}

export function adminModule(ctx: AdminDeps, reset: () => Promise<void>): RouteModule {
  return {
    prefix: ADMIN_PREFIX,
    // Never faulted, so a test can always clear what it injected.
    faultFree: true,
    register(r) {
      r.add('POST', '/accounts', ({ body }) => {
        const input = parseBody(accountSchema, body);
        const { account, token } = ctx.store.createAccount(input);
        return {
          body: {
            accountId: account.id,
            token,
            proxyPassword: account.proxyPassword,
            apiKey: account.apiKey,
          },
        };
      });
      r.add('GET', '/accounts/:id', ({ params }) => ({
        body: accountView(accountOf(ctx, params.id as string)),
      }));
      r.add('PATCH', '/accounts/:id', ({ params, body }) => {
        const account = accountOf(ctx, params.id as string);
        const input = parseBody(accountSchema, body);
        if (input.purchased !== undefined) account.purchased = input.purchased;
        if (input.balance !== undefined) account.balance = input.balance;
        Object.assign(account.limits, input.limits);
        return { body: accountView(account) };
      });
      // What "copy the token from the dashboard again" gives after expiry.
      r.add('POST', '/accounts/:id/token', ({ params }) => {
        const account = accountOf(ctx, params.id as string);
        return { body: { token: ctx.store.issueToken(account.id) } };
      });

      r.add('GET', '/clock', () => ({ body: { now: ctx.clock.nowIso() } }));
      r.add('POST', '/clock', ({ body }) => {
        const { advanceMs } = parseBody(clockSchema, body);
        return { body: { now: new Date(ctx.clock.advance(advanceMs)).toISOString() } };
      });

      r.add('GET', '/faults', () => ({ body: { faults: ctx.faults.list() } }));
      r.add('POST', '/faults', ({ body }) => ({
        body: { fault: ctx.faults.add(parseBody(faultSpecSchema, body)) },
      }));
      r.add('DELETE', '/faults', () => {
        ctx.faults.clear();
        return { body: { faults: [] } };
      });

      // An ended session with one published recording of the given size (download benchmarks).
      r.add('POST', '/recordings', async ({ body }) => {
        const input = parseBody(syntheticRecordingSchema, body);
        const accountId = input.accountId ?? ctx.defaultAccountId;
        return { body: await ctx.browser.addSyntheticRecording(accountId, input.sizeBytes) };
      });

      // The emulator's internet: what a sandboxed session's exit can reach.
      r.add('GET', '/internet', () => ({ body: { sites: ctx.internet.list() } }));
      r.add('POST', '/internet', ({ body }) => {
        const { host, target } = (body ?? {}) as { host?: unknown; target?: unknown };
        const issue = siteIssue(host, target);
        if (issue) throw badRequest(`Invalid admin request: ${issue.field}: ${issue.message}`);
        ctx.internet.publish(host as string, target as string);
        return { body: { sites: ctx.internet.list() } };
      });
      // Cuts the clients' websockets of one session (or of all); the sessions keep running.
      r.add('POST', '/cut', async ({ body }) => {
        const { sessionId } = parseBody(cutSchema, body);
        const cut = await ctx.browser.cutConnections(sessionId);
        if (!cut) throw notFound('Running session');
        return { body: cut };
      });
      r.add('POST', '/flaky', ({ body }) => {
        const { meanIntervalMs } = parseBody(flakySchema, body);
        ctx.browser.flaky.set(meanIntervalMs);
        return { body: { meanIntervalMs: meanIntervalMs ?? null } };
      });

      r.add('GET', '/state', () => ({ body: emulatorState(ctx) }));
      r.add('POST', '/reset', async () => {
        await reset();
        return { body: emulatorState(ctx) };
      });
    },
  };
}
