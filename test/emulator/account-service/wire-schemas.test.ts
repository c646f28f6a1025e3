import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AccountApi } from '../../../src/account-api/index.js';
import { resolveAccountOptions } from '../../../src/emulator/account-service/account-options.js';
import type { AccountRecord } from '../../../src/emulator/account-service/types.js';
import {
  submitSchema,
  WebhookRequestSchema,
} from '../../../src/emulator/account-service/wire-schemas.js';
import { isRequestValidationError } from '../../../src/http/errors.js';
import { type Harness, startHarness } from './harness.js';

// Two edits to the client's contract, as a change to src/account-api/schemas would make them:
// a lower question limit, and a webhook field the client no longer reads.
vi.mock('../../../src/account-api/schemas/limits.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/account-api/schemas/limits.js')>();
  return { ...real, LIMITS: { ...real.LIMITS, questionsPerSubmit: 5 } };
});
vi.mock('../../../src/account-api/schemas/webhooks.js', async (importOriginal) => {
  const real =
    await importOriginal<typeof import('../../../src/account-api/schemas/webhooks.js')>();
  const { lazySchema } = await import('../../../src/http/lazy-schema.js');
  return {
    ...real,
    WebhookSchema: lazySchema(() => real.WebhookSchema.omit({ description: true })),
  };
});

const questions = (n: number) => Array.from({ length: n }, (_, i) => `question ${i}?`);
const submit = (n: number) => ({
  questions: questions(n),
  platforms: ['assistant_a'],
  locations: [{ country: 'us' }],
});

describe('the account service follows a change to the client schemas', () => {
  let h: Harness;
  let account: AccountRecord;
  beforeEach(async () => {
    h = await startHarness();
    account = h.addAccount({ balance: 100 });
  });
  afterEach(() => h.close());

  it("refuses a submit over the client's question limit, as the client does before sending", async () => {
    const over = await h.call('POST', '/llm/submit/', { key: account.apiKey, body: submit(6) });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ questions: ['must have at most 5 items (got 6)'] });
    const within = await h.call('POST', '/llm/submit/', { key: account.apiKey, body: submit(5) });
    expect(within.status).toBe(200);

    const api = new AccountApi({ baseUrl: h.origin, apiKey: account.apiKey, rateLimits: false });
    try {
      const refused = await api.queries.submit(submit(6) as never).catch((e: unknown) => e);
      expect(isRequestValidationError(refused)).toBe(true);
      expect(String((refused as Error).message)).toContain('questions');
    } finally {
      await api.close();
    }
  });

  it('answers 500 naming a field the client schema no longer has, instead of sending it', async () => {
    const created = await h.call('POST', '/webhooks', {
      key: account.apiKey,
      body: { url: 'https://hooks.example/a', events: ['credits.low'] },
    });
    expect(created.status).toBe(201);
    const fetched = await h.call('GET', `/webhooks/${created.body.id}`, { key: account.apiKey });
    expect(fetched.status).toBe(500);
    expect(fetched.body.error).toMatch(/description: not in the client's schema/);
  });
});

describe("the server-side rules added to the client's schemas", () => {
  const body = (patch: Record<string, unknown>) => ({ ...submit(1), ...patch });
  const issues = (
    schema: { safeParse(v: unknown): { error?: { issues: unknown[] } } },
    v: unknown,
  ) => (schema.safeParse(v).error?.issues ?? []) as { path: PropertyKey[]; message: string }[];

  it('refuses assistant_c only when the assistantC option says reject', () => {
    const withC = body({ platforms: ['assistant_a', 'assistant_c'] });
    const reject = issues(submitSchema(resolveAccountOptions()), withC);
    expect(reject).toEqual([
      expect.objectContaining({
        path: ['platforms', 1],
        message: expect.stringContaining('unavailable'),
      }),
    ]);
    expect(issues(submitSchema(resolveAccountOptions({ assistantC: 'accept' })), withC)).toEqual(
      [],
    );
  });

  it('refuses an unknown or unavailable country under its location, after the client format', () => {
    const schema = submitSchema(resolveAccountOptions({ unavailableCountries: ['DE'] }));
    const found = issues(
      schema,
      body({
        locations: [{ country: 'us' }, { country: 'de' }, { country: 'xx' }, { country: 'US' }],
      }),
    );
    expect(found.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['locations.3.country', 'must be a lowercase 2-letter ISO country code, e.g. "us"'],
      ['locations.1.country', 'must be a country the assistants are offered in (got "de")'],
      ['locations.2.country', 'must be an ISO 3166-1 country code (got "xx")'],
    ]);
  });

  it('takes only http(s) webhook URLs and event types the service lists', () => {
    const hook = { url: 'https://hooks.example/a', events: ['credits.low'] };
    expect(issues(WebhookRequestSchema, hook)).toEqual([]);
    const found = issues(WebhookRequestSchema, { url: 'ftp://hooks.example/a', events: ['nope'] });
    expect(found.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['url', 'must be an http(s) URL'],
      ['events.0', 'must be an event type of /webhooks/event-types (got "nope")'],
    ]);
  });
});
