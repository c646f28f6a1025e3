/**
 * `/notifications/`: an unread queue per account. Choices the spec leaves open: the list is a
 * bare JSON array of `{notification_id, category, title, message, created}`, oldest first;
 * `DELETE /notifications/{id}` answers 204, also for one already read (marking read is
 * idempotent); a malformed id is 400 `{notification_id: ['must be a UUID']}`; an id unknown to
 * this account is 404 `{error: 'Not found'}`. Needs a valid key, no purchase, no rate limit.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { zod } from '../../http/lazy-schema.js';
import { accountNotFound } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { answer, parseBody } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { AccountServiceContext } from './context.js';
import type { NotificationRecord } from './state.js';
import { NotificationAnswerSchema, NotificationIdSchema } from './wire-schemas.js';

export function notificationView({
  read: _,
  ...view
}: NotificationRecord): z.input<typeof NotificationAnswerSchema> {
  return view;
}

/** Queues an unread notification and emits `notification.created`. */
export function pushNotification(
  ctx: AccountServiceContext,
  accountId: string,
  input: Pick<NotificationRecord, 'message'> &
    Partial<Pick<NotificationRecord, 'category' | 'title'>>,
): NotificationRecord {
  const record: NotificationRecord = {
    notification_id: randomUUID(),
    category: input.category ?? 'general',
    title: input.title ?? 'Notification',
    message: input.message,
    created: ctx.clock.nowIso(),
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
    const unread = [...notifications.values()].filter((n) => !n.read).map(notificationView);
    return { body: answer(zod().array(NotificationAnswerSchema), unread) };
  });

  routes.add('DELETE', '/notifications/:id', ({ req, params }) => {
    const { notifications } = ctx.states.of(authenticate(ctx, req).id);
    const id = parseBody(NotificationIdSchema, { notification_id: params.id }).notification_id;
    const record = notifications.get(id.toLowerCase());
    if (!record) throw accountNotFound();
    record.read = true;
    return { status: 204 };
  });
}
