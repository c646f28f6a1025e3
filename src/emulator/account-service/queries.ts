/**
 * `/llm/balance/`, `/llm/submit/`, `/llm/results/{request_id}/`: credits, batches and rows.
 *
 * Rows leave `pending` on the emulator clock (a timer at `resolveAt`, and any read that finds
 * the time passed). A failing row gives its credit back before it is visible as `failed`: both
 * happen in one synchronous step, so no read can see one without the other.
 */
import { randomUUID } from 'node:crypto';
import { BalanceSchema, BatchSchema } from '../../account-api/schemas/queries.js';
import { accountNotFound, insufficientCredits } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { answer, parseBody } from '../server/wire.js';
import { pendingMs } from './account-options.js';
import { defaultAnswerProvider } from './answers.js';
import { authenticate, requirePurchase } from './auth.js';
import type { AccountServiceContext } from './context.js';
import { normalizeLocation } from './location-normalizer.js';
import { pushNotification } from './notifications.js';
import type { Batch, CreditRecord, RowRecord } from './state.js';
import type { AccountRecord } from './types.js';
import { type SubmitRequest, SubmittedAnswerSchema, submitSchema } from './wire-schemas.js';

/** The failure marker a question can carry to make its rows fail (tests of refunds). */
export const FAIL_MARKER = '[emulator:fail]';

export function registerQueryRoutes(routes: RouteRegistrar, ctx: AccountServiceContext): void {
  const Submit = submitSchema(ctx.options);
  routes.add('GET', '/llm/balance', ({ req }) => {
    const account = authenticate(ctx, req);
    requirePurchase(account);
    ctx.limits.take(account.id, 'read');
    grantMonthlyCredits(ctx, account);
    return { body: answer(BalanceSchema, { balance: account.balance }) };
  });

  routes.add('POST', '/llm/submit', ({ req, body }) => {
    const account = authenticate(ctx, req);
    requirePurchase(account);
    ctx.limits.take(account.id, 'submit');
    const request = parseBody(Submit, body);
    const perPair = request.questions.length * request.platforms.length;
    const cost = ctx.options.chargePerLocation ? perPair * request.locations.length : perPair;
    if (cost > account.balance) throw insufficientCredits(cost, account.balance);
    const batch = createBatch(ctx, account, request);
    const before = account.balance;
    account.balance -= cost;
    warnIfLow(ctx, account, before);
    return { body: answer(SubmittedAnswerSchema, batchView(batch)) };
  });

  routes.add('GET', '/llm/results/:requestId', ({ req, params }) => {
    const account = authenticate(ctx, req);
    requirePurchase(account);
    ctx.limits.take(account.id, 'read');
    const batch = ctx.states.of(account.id).batches.get(params.requestId ?? '');
    if (!batch) throw accountNotFound();
    const now = ctx.clock.now();
    for (const record of batch.rows) if (record.resolveAt <= now) settle(ctx, record);
    return { body: answer(BatchSchema, batchView(batch)) };
  });
}

const batchView = (batch: Batch) => ({
  request_id: batch.requestId,
  results: batch.rows.map((r) => r.row),
});

function grantMonthlyCredits(ctx: AccountServiceContext, account: AccountRecord): void {
  const state = ctx.states.of(account.id);
  const month = ctx.clock.nowIso().slice(0, 7);
  if (state.freeCreditsMonth === month) return;
  state.freeCreditsMonth = month;
  const amount = ctx.options.freeCreditsPerMonth;
  account.balance += amount;
  void ctx.events.emit(account.id, 'credits.granted', {
    amount,
    month,
    balance: account.balance,
  });
}

function warnIfLow(ctx: AccountServiceContext, account: AccountRecord, before: number): void {
  const threshold = ctx.options.lowCreditThreshold;
  if (!(before >= threshold && account.balance < threshold)) return;
  void ctx.events.emit(account.id, 'credits.low', { balance: account.balance, threshold });
  pushNotification(ctx, account.id, {
    category: 'credits',
    title: 'Low credit balance',
    message: `Your balance is ${account.balance} credits, under ${threshold}.`,
  });
}

function createBatch(
  ctx: AccountServiceContext,
  account: AccountRecord,
  request: SubmitRequest,
): Batch {
  const requestId = randomUUID();
  const created = ctx.clock.nowIso();
  const locations = request.locations.map((l) => normalizeLocation(l.country, l.region, l.city));
  const rows: RowRecord[] = [];
  for (const question of request.questions) {
    for (const platform of request.platforms) {
      const pairCredit: CreditRecord = { rows: 0, failed: 0 };
      for (const location of locations) {
        const credit = ctx.options.chargePerLocation ? { rows: 0, failed: 0 } : pairCredit;
        credit.rows++;
        const failRoll = ctx.random();
        const willFail =
          question.includes(FAIL_MARKER) ||
          (platform === 'assistant_c' && ctx.options.assistantC === 'fail') ||
          failRoll < ctx.options.failureRate;
        const record: RowRecord = {
          row: {
            id: randomUUID(),
            platform,
            question,
            ...location,
            status: 'pending',
            raw_response: null,
            created,
            updated: created,
          },
          accountId: account.id,
          resolveAt:
            ctx.clock.now() + pendingMs(ctx.options.delay, { platform, question }, ctx.random),
          willFail,
          credit,
          settling: false,
          timer: undefined,
        };
        record.timer = ctx.clock.at(record.resolveAt, () => settle(ctx, record));
        rows.push(record);
      }
    }
  }
  const batch = { requestId, rows };
  ctx.states.of(account.id).batches.set(requestId, batch);
  return batch;
}

/** Moves a due row to `success` or `failed` (refunding first). Idempotent. */
export function settle(ctx: AccountServiceContext, record: RowRecord): void {
  if (record.row.status !== 'pending' || record.settling) return;
  record.timer?.cancel();
  if (record.willFail) {
    fail(ctx, record);
    return;
  }
  const provider = ctx.options.answers ?? defaultAnswerProvider;
  const { question, platform, country, region, city } = record.row;
  let answer: ReturnType<typeof provider>;
  try {
    answer = provider({ question, platform, country, region, city });
  } catch {
    fail(ctx, record);
    return;
  }
  if (answer instanceof Promise) {
    record.settling = true;
    answer.then(
      (raw) => {
        record.settling = false;
        succeed(ctx, record, raw);
      },
      () => {
        record.settling = false;
        fail(ctx, record);
      },
    );
    return;
  }
  succeed(ctx, record, answer);
}

function succeed(
  ctx: AccountServiceContext,
  record: RowRecord,
  raw: RowRecord['row']['raw_response'],
): void {
  if (record.row.status !== 'pending') return;
  record.row.raw_response = raw;
  record.row.status = 'success';
  record.row.updated = ctx.clock.nowIso();
}

function fail(ctx: AccountServiceContext, record: RowRecord): void {
  if (record.row.status !== 'pending') return;
  // Refund first: the credit is back before any read can see the row as failed.
  record.credit.failed++;
  if (record.credit.failed === record.credit.rows) {
    const account = ctx.accounts.byId(record.accountId);
    if (account) account.balance += 1;
  }
  record.row.raw_response = null;
  record.row.status = 'failed';
  record.row.updated = ctx.clock.nowIso();
}
