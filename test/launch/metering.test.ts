/**
 * The process's usage and budgets wired to the real paths (metering.ts): creates through
 * createSession() against a scripted browser service, leases ending them, the account client's
 * submits against a loopback server; a run's budget and usage files in its directory.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountApi } from '../../src/account-api/index.js';
import { isBudgetExceededError } from '../../src/http/budget-exceeded.js';
import { callScope } from '../../src/http/call-options.js';
import { createSession } from '../../src/launch/create-session.js';
import { LaunchError } from '../../src/launch/errors.js';
import {
  endIfMinutesOut,
  RUN_BUDGET_ENV,
  RUN_DIR_ENV,
  setBudget,
  settleUsage,
  usage,
} from '../../src/launch/metering.js';
import { RemoteSession } from '../../src/launch/remote-session.js';
import { tracker } from '../../src/launch/tracker.js';
import { pendingRow, row, validSubmit } from '../account-api/fixtures.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { useFakeService } from './fake-service.js';

const service = useFakeService('rb-metering-');
const SESSIONS = /^\/sessions$/;
const scope = () => callScope({ timeout: 30_000 }, 30_000, 'launchRemote');

/** A create and the lease that holds it, as a launch makes them. */
async function launch(): Promise<RemoteSession> {
  const api = service.api();
  const { created, slot } = await createSession(
    api,
    { country: 'us', proxy_password: 'pw' } as never,
    { scope: scope(), waitForSlot: true, what: 'launchRemote' },
  );
  return new RemoteSession(api, created.id, slot);
}

const sessionOf = (id: string) => usage().sessions.find((s) => s.id === id);

let runDir: string | undefined;
beforeEach(() => {
  runDir = undefined;
});
afterEach(() => {
  setBudget(undefined);
  delete process.env[RUN_DIR_ENV];
  delete process.env[RUN_BUDGET_ENV];
  if (runDir) rmSync(runDir, { recursive: true, force: true });
});

function inRun(budget?: object): string {
  runDir = mkdtempSync(join(tmpdir(), 'rb-run-'));
  process.env[RUN_DIR_ENV] = runDir;
  if (budget) process.env[RUN_BUDGET_ENV] = JSON.stringify(budget);
  return runDir;
}

describe('usage of the real paths', () => {
  it('records a launched session and how its close ended it', async () => {
    const lease = await launch();
    expect(sessionOf(lease.id)).toMatchObject({ source: 'created', end: null });
    await lease.release();
    expect(sessionOf(lease.id)).toMatchObject({ end: 'closed', estimated: true });
  });

  it("settleUsage() reads the service's own record of ended sessions", async () => {
    const lease = await launch();
    await lease.release();
    const fake = service.sessions.get(lease.id);
    if (!fake) throw new Error('the fake service lost the session');
    service.on('GET', new RegExp(`^/sessions/${lease.id}$`), (_req, res) =>
      json(200, {
        data: {
          ...fake,
          status: 'ended',
          created_at: '2026-01-01T00:00:00.000Z',
          ended_at: '2026-01-01T00:07:30.000Z',
        },
      })(_req, res),
    );
    const settled = await settleUsage(service.api());
    expect(settled.sessions.find((s) => s.id === lease.id)).toMatchObject({
      minutes: 7.5,
      estimated: false,
    });
  });

  it('a handed-over session counts as kept', async () => {
    const lease = await launch();
    lease.keep();
    expect(sessionOf(lease.id)?.end).toBe('kept');
    await service.api().sessions.end(lease.id);
  });
});

describe('a process budget', () => {
  it('refuses the launch past `sessions` before any request, and creates nothing', async () => {
    setBudget({ sessions: 1 });
    const first = await launch();
    const error = await launch().catch((e: unknown) => e);
    expect(isBudgetExceededError(error)).toBe(true);
    expect((error as Error).message).toMatch(/over the process budget of 1 sessions \(1 spent/);
    expect(service.calls('POST', SESSIONS)).toHaveLength(1);
    expect(tracker.creates()).toHaveLength(0);
    await first.release();
  });

  it('gives the session back when the service refused the create', async () => {
    setBudget({ sessions: 1 });
    service.on('POST', SESSIONS, json(400, { error: 'bad protocol' }));
    await expect(launch()).rejects.toThrow(/bad protocol/);
    service.off('POST');
    const lease = await launch();
    await lease.release();
  });

  it('ends its running sessions once its minutes are spent, saying so', async () => {
    setBudget({ sessionMinutes: 0.0005 });
    const lease = await launch();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(endIfMinutesOut()).toBe(true);
    // The same DELETE the budget sent (a lease deletes once).
    await lease.release();
    expect(sessionOf(lease.id)?.end).toBe('budget');
    expect(service.calls('DELETE', new RegExp(`^/sessions/${lease.id}$`))).toHaveLength(1);
    await expect(launch()).rejects.toThrow(/over the process budget of 0.0005 min sessionMinutes/);
  });

  it('checks its fields: a typed error names the field and the rule', () => {
    expect(() => setBudget({ sessions: 1.5 })).toThrow(
      new LaunchError('setBudget: budget.sessions must be a whole number >= 0, got 1.5'),
    );
    expect(() => setBudget({ minutes: 3 } as never)).toThrow(
      /budget.minutes is not a budget field/,
    );
  });
});

describe('a run budget', () => {
  it('is counted in the run directory, and each end writes this process usage there', async () => {
    const dir = inRun({ sessions: 1 });
    const lease = await launch();
    await expect(launch()).rejects.toThrow(/run budget of 1 sessions/);
    await lease.release();
    const budget = JSON.parse(readFileSync(join(dir, 'budget.json'), 'utf8'));
    expect(budget.sessions).toBe(1);
    expect(budget.running).toEqual({});
    const written = JSON.parse(readFileSync(join(dir, `usage-${process.pid}.json`), 'utf8'));
    expect(written.sessions.find((s: { id: string }) => s.id === lease.id)?.end).toBe('closed');
  });
});

describe('credits', () => {
  let server: TestServer;
  let api: AccountApi;
  beforeEach(async () => {
    server = await startTestServer();
    api = new AccountApi({ apiKey: 'ak_test_key_123', baseUrl: server.origin });
  });
  afterEach(async () => {
    await api.close();
    await server.close();
  });

  it('counts what a submit charged and what failed rows refunded', async () => {
    const before = usage().totals.credits;
    server.respond(
      json(200, { request_id: 'c1', results: [pendingRow(), pendingRow({ id: 'r2' })] }),
      json(200, {
        request_id: 'c1',
        results: [row(), row({ id: 'r2', status: 'failed', raw_response: null })],
      }),
      json(200, {
        request_id: 'c1',
        results: [row(), row({ id: 'r2', status: 'failed', raw_response: null })],
      }),
    );
    await api.queries.submit({ ...validSubmit, platforms: ['assistant_a', 'assistant_b'] });
    await api.queries.results('c1');
    await api.queries.results('c1');
    const after = usage().totals.credits;
    expect(after.charged - before.charged).toBe(2);
    expect(after.refunded - before.refunded).toBe(1);
  });

  it('a credits budget refuses a submit past it before any request; a 402 gives the credits back', async () => {
    setBudget({ credits: 2 });
    server.respond(json(402, { error: 'Insufficient credits: 2 required, 0 available.' }));
    await expect(
      api.queries.submit({ ...validSubmit, platforms: ['assistant_a', 'assistant_b'] }),
    ).rejects.toThrow(/Insufficient/);
    const error = await api.queries
      .submit({ ...validSubmit, questions: ['a', 'b'], platforms: ['assistant_a', 'assistant_b'] })
      .catch((e: unknown) => e);
    expect(isBudgetExceededError(error)).toBe(true);
    expect((error as Error).message).toBe(
      'queries.submit: over the process budget of 2 credits (0 spent, this call needs 4 more); nothing was sent',
    );
    expect(server.requests).toHaveLength(1);
  });
});
