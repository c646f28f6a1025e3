/**
 * `/notifications/`: an unread queue per account. Choices the spec leaves open: the list is a
 * bare JSON array of `{notification_id, category, title, message, created}`, oldest first;
 * `DELETE /notifications/{id}` answers 204, also for one already read (marking read is
 * idempotent); a malformed id is 400 `{notification_id: [...]}`; an id unknown to this account
 * is 404 `{error: 'Not found'}`. Needs a valid key, no purchase, no rate limit.
 */
import { randomUUID } from 'node:crypto';
import { accountNotFound, fieldErrors } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { authenticate } from './auth.js';
import { type AccountServiceContext, nowIso } from './context.js';
import type { NotificationRecord } from './state.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface NotificationInput {
  category?: string | undefined;
  title?: string | undefined;
  message: string;
}

export function notificationView(n: NotificationRecord) {
  return {
    notification_id: n.notification_id,
    category: n.category,
    title: n.title,
    message: n.message,
    created: n.created,
  };
}

/** Queues an unread notification and emits `notification.created`. */
export function pushNotification(
  ctx: AccountServiceContext,
  accountId: string,
  input: NotificationInput,
): NotificationRecord {
  const record: NotificationRecord = {
    notification_id: randomUUID(),
    category: input.category ?? 'general',
    title: input.title ?? 'Notification',
    message: input.message,
    created: nowIso(ctx.clock),
    read: false,
  };
  ctx.states.of(accountId).notifications.set(record.notification_id, record);
  void ctx.events.emit(accountId, 'notification.created', notificationView(record));
  return record;
}

export function registerNotificationRoutes(
  routes: RouteRegistrar,
  ctx: AccountServiceContext,
): void {
  routes.add('GET', '/notifications', ({ req }) => {
    const { notifications } = ctx.states.of(authenticate(ctx, req).id);
    return { body: [...notifications.values()].filter((n) => !n.read).map(notificationView) };
  });

  routes.add('DELETE', '/notifications/:id', ({ req, params }) => {
    const { notifications } = ctx.states.of(authenticate(ctx, req).id);
    const id = params.id ?? '';
    if (!UUID.test(id)) {
      throw fieldErrors({ notification_id: ['Must be a valid UUID.'] });
    }
    const record = notifications.get(id.toLowerCase());
    if (!record) throw accountNotFound();
    record.read = true;
    return { status: 204 };
  });
}
