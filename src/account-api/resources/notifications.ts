/** `/notifications/`: the unread queue. Listing returns unread only; marking read is a DELETE. */
import type { CallOptions } from '../../http/call-options.js';
import { isNotFoundError } from '../../http/errors.js';
import { idSegment } from '../../http/path.js';
import { rejectField } from '../../http/request-validation.js';
import { Resource } from '../../http/resource.js';
import { listOf } from '../schemas/list.js';
import {
  NOTIFICATION_ID,
  type Notification,
  NotificationSchema,
} from '../schemas/notifications.js';

export class Notifications extends Resource {
  list(options: CallOptions = {}): Promise<Notification[]> {
    return this.transport.request({
      ...options,
      method: 'GET',
      path: '/notifications/',
      schema: listOf(NotificationSchema),
      what: 'notifications.list',
    });
  }

  /** `notificationId` is a UUID (checked before sending). */
  async markRead(notificationId: string, options: CallOptions = {}): Promise<void> {
    const what = 'notifications.markRead';
    const segment = idSegment(what, 'notificationId', notificationId);
    if (!NOTIFICATION_ID.test(notificationId)) {
      rejectField(what, 'notificationId', 'must be a UUID, as `notifications.list()` returns it');
    }
    await this.transport.request({
      ...options,
      method: 'DELETE',
      path: `/notifications/${segment}`,
      what: `${what}(${notificationId})`,
    });
  }

  /**
   * Yields every unread notification and marks it read once the loop body has handled it, so
   * one that was being handled when the loop broke stays unread. Lists again until the queue
   * is empty; one already marked read elsewhere (404) is skipped.
   */
  async *drain(options: CallOptions = {}): AsyncGenerator<Notification, void, undefined> {
    const seen = new Set<string>();
    for (;;) {
      const fresh = (await this.list(options)).filter((n) => !seen.has(n.notification_id));
      if (fresh.length === 0) return;
      for (const notification of fresh) {
        seen.add(notification.notification_id);
        yield notification;
        try {
          await this.markRead(notification.notification_id, options);
        } catch (error) {
          if (!isNotFoundError(error)) throw error;
        }
      }
    }
  }
}
