/**
 * Admin routes of the account service, under `/_emulator` beside the control plane's own:
 * - `POST /_emulator/events {accountId?|apiKey?, type, data?}` delivers an event now;
 * - `POST /_emulator/notifications {accountId?|apiKey?, message, title?, category?}` queues an
 *   unread notification (and emits `notification.created`);
 * - `POST /_emulator/purchases {accountId?|apiKey?, credits?=100}` completes a credit-pack
 *   purchase: unlocks the query endpoints, adds credits, emits `credits.purchased`.
 * An account is named by `accountId` or `apiKey`; events and notifications naming none apply to
 * every account. Each answers after its webhook deliveries have finished, so a test can assert
 * on what its receiver got. Errors are the control plane's flat `{error}`.
 */
import type { Reply, RouteRegistrar } from '../server/router.js';
import type { AccountServiceContext } from './context.js';
import { EVENT_TYPE_NAMES } from './events.js';
import { notificationView, pushNotification } from './notifications.js';
import type { AccountRecord } from './types.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const fail = (status: number, error: string): Reply => ({ status, body: { error } });

type Target = { accounts: AccountRecord[] } | { error: Reply };

function targets(ctx: AccountServiceContext, body: Record<string, unknown>, all: boolean): Target {
  const { accountId, apiKey } = body;
  if (typeof accountId === 'string') {
    const account = ctx.accounts.byId(accountId);
    return account ? { accounts: [account] } : { error: fail(404, 'Account not found') };
  }
  if (typeof apiKey === 'string') {
    const account = ctx.accounts.byApiKey(apiKey);
    return account ? { accounts: [account] } : { error: fail(404, 'Account not found') };
  }
  if (!all) return { error: fail(400, 'Name the account with accountId or apiKey') };
  return { accounts: [...ctx.accounts.list()] };
}

export function registerAccountAdminRoutes(
  routes: RouteRegistrar,
  ctx: AccountServiceContext,
): void {
  routes.add('POST', '/events', async ({ body }) => {
    if (!isRecord(body)) return fail(400, 'Expected a JSON object {type, data?, accountId?}');
    if (typeof body.type !== 'string' || !EVENT_TYPE_NAMES.has(body.type)) {
      return fail(400, `type must be one of: ${[...EVENT_TYPE_NAMES].join(', ')}`);
    }
    const target = targets(ctx, body, true);
    if ('error' in target) return target.error;
    const type = body.type;
    const deliveries = await Promise.all(
      target.accounts.map(async (a) =>
        (await ctx.events.emit(a.id, type, body.data ?? {})).map((d) => ({
          account_id: a.id,
          ...d,
        })),
      ),
    );
    return { body: { deliveries: deliveries.flat() } };
  });

  routes.add('POST', '/notifications', async ({ body }) => {
    if (!isRecord(body) || typeof body.message !== 'string' || body.message === '') {
      return fail(400, 'Expected a JSON object {message, title?, category?, accountId?}');
    }
    const target = targets(ctx, body, true);
    if ('error' in target) return target.error;
    const input = {
      message: body.message,
      title: typeof body.title === 'string' ? body.title : undefined,
      category: typeof body.category === 'string' ? body.category : undefined,
    };
    const created = target.accounts.map((a) => pushNotification(ctx, a.id, input));
    await ctx.events.idle();
    return { status: 201, body: { notifications: created.map(notificationView) } };
  });

  routes.add('POST', '/purchases', async ({ body }) => {
    const input = isRecord(body) ? body : {};
    const credits = input.credits ?? 100;
    if (typeof credits !== 'number' || !Number.isInteger(credits) || credits < 0) {
      return fail(400, 'credits must be an integer >= 0');
    }
    const target = targets(ctx, input, false);
    if ('error' in target) return target.error;
    const account = target.accounts[0] as AccountRecord;
    account.purchased = true;
    account.balance += credits;
    await ctx.events.emit(account.id, 'credits.purchased', { credits, balance: account.balance });
    return { body: { purchased: true, balance: account.balance } };
  });
}
