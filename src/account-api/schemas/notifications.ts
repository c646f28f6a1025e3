/** Schemas of `/notifications/`. */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';

/** Fields other than `notification_id` are not documented, so none is required. */
export const NotificationSchema = lazySchema(() =>
  zod().looseObject({ notification_id: zod().string() }),
);
export type Notification = z.infer<typeof NotificationSchema>;

/** `notification_id` is a UUID (account-api.md): anything else cannot name a notification. */
export const NOTIFICATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
