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
import { zod } from '../../http/lazy-schema.js';
import { HttpError } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { parseBody } from '../server/wire.js';
import type { AccountServiceContext } from './context.js';
import { notificationView, pushNotification } from './notifications.js';
import type { AccountRecord } from './types.js';
import { EVENT_TYPES } from './wire-schemas.js';

/** The account a call names, by id or key; an optional one means every account. */
const naming = () => ({ accountId: zod().string().optional(), apiKey: zod().string().optional() });

/** The accounts a request names (all of them when it names none and `all`), else a flat error. */
function targets(
  ctx: AccountServiceContext,
  { accountId, apiKey }: { accountId?: string | undefined; apiKey?: string | undefined },
  all: boolean,
): AccountRecord[] {
  if (accountId !== undefined || apiKey !== undefined) {
    const account =
      accountId !== undefined ? ctx.accounts.byId(accountId) : ctx.accounts.byApiKey(apiKey ?? '');
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
  const types = EVENT_TYPES.map((e) => e.type) as [string, ...string[]];
  const EventSchema = zod().object({
    ...naming(),
    type: zod().enum(types),
    data: zod().unknown().optional(),
  });
  const NotificationSchema = zod().object({
    ...naming(),
    message: zod().string().min(1),
    title: zod().string().optional(),
    category: zod().string().optional(),
  });
  const PurchaseSchema = zod().object({
    ...naming(),
    credits: zod().number().int().min(0).default(100),
  });

  routes.add('POST', '/events', async ({ body }) => {
    const { type, data, ...named } = parseBody(EventSchema, body);
    const deliveries = await Promise.all(
      targets(ctx, named, true).map(async (a) =>
        (await ctx.events.emit(a.id, type, data ?? {})).map((d) => ({ account_id: a.id, ...d })),
      ),
    );
    return { body: { deliveries: deliveries.flat() } };
  });

  routes.add('POST', '/notifications', async ({ body }) => {
    const { accountId, apiKey, ...input } = parseBody(NotificationSchema, body);
    const accounts = targets(ctx, { accountId, apiKey }, true);
    const created = accounts.map((a) => pushNotification(ctx, a.id, input));
    await ctx.events.idle();
    return { status: 201, body: { notifications: created.map(notificationView) } };
  });

  routes.add('POST', '/purchases', async ({ body }) => {
    const { credits, ...named } = parseBody(PurchaseSchema, body);
    const account = targets(ctx, named, false)[0] as AccountRecord;
    account.purchased = true;
    account.balance += credits;
    await ctx.events.emit(account.id, 'credits.purchased', { credits, balance: account.balance });
    return { body: { purchased: true, balance: account.balance } };
  });
}
