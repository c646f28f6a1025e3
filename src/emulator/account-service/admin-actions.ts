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
import { HttpError } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import type { AccountServiceContext } from './context.js';
import { EVENT_TYPE_NAMES } from './events.js';
import { notificationView, pushNotification } from './notifications.js';
import type { AccountRecord } from './types.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The accounts a request names (all of them when it names none and `all`), else a flat error. */
function targets(
  ctx: AccountServiceContext,
  body: Record<string, unknown>,
  all: boolean,
): AccountRecord[] {
  const { accountId, apiKey } = body;
  if (typeof accountId === 'string') {
    const account = ctx.accounts.byId(accountId);
    if (!account) throw new HttpError(404, 'Account not found');
    return [account];
  }
  if (typeof apiKey === 'string') {
    const account = ctx.accounts.byApiKey(apiKey);
    if (!account) throw new HttpError(404, 'Account not found');
    return [account];
  }
  if (!all) throw new HttpError(400, 'Name the account with accountId or apiKey');
  return [...ctx.accounts.list()];
}

export function registerAdminActionRoutes(
  routes: RouteRegistrar,
  ctx: AccountServiceContext,
): void {
  routes.add('POST', '/events', async ({ body }) => {
    if (!isRecord(body)) {
      throw new HttpError(400, 'Expected a JSON object {type, data?, accountId?}');
    }
    if (typeof body.type !== 'string' || !EVENT_TYPE_NAMES.has(body.type)) {
      throw new HttpError(400, `type must be one of: ${[...EVENT_TYPE_NAMES].join(', ')}`);
    }
    const accounts = targets(ctx, body, true);
    const type = body.type;
    const deliveries = await Promise.all(
      accounts.map(async (a) =>
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
      throw new HttpError(400, 'Expected a JSON object {message, title?, category?, accountId?}');
    }
    const accounts = targets(ctx, body, true);
    const input = {
      message: body.message,
      title: typeof body.title === 'string' ? body.title : undefined,
      category: typeof body.category === 'string' ? body.category : undefined,
    };
    const created = accounts.map((a) => pushNotification(ctx, a.id, input));
    await ctx.events.idle();
    return { status: 201, body: { notifications: created.map(notificationView) } };
  });

  routes.add('POST', '/purchases', async ({ body }) => {
    const input = isRecord(body) ? body : {};
    const credits = input.credits ?? 100;
    if (typeof credits !== 'number' || !Number.isInteger(credits) || credits < 0) {
      throw new HttpError(400, 'credits must be an integer >= 0');
    }
    const account = targets(ctx, input, false)[0] as AccountRecord;
    account.purchased = true;
    account.balance += credits;
    await ctx.events.emit(account.id, 'credits.purchased', { credits, balance: account.balance });
    return { body: { purchased: true, balance: account.balance } };
  });
}
