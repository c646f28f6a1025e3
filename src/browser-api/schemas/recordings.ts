/** Schemas of `GET /sessions/{id}/recordings`. */
import type { z } from 'zod';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { IdSchema, TimestampSchema } from './vocabulary.js';

export const RecordingSchema = lazySchema(() =>
  zod().looseObject({
    id: IdSchema,
    is_primary: zod().boolean(),
    duration_seconds: zod().number().nonnegative(),
    size_bytes: zod().number().int().nonnegative(),
    /** Signed and short-lived (about 10 minutes): fetch it when you play or download, not before. */
    video_url: zod()
      .string()
      .regex(/^https?:\/\//i, 'must be an http(s) URL'),
    video_url_expires_at: TimestampSchema,
  }),
);
export type Recording = z.infer<typeof RecordingSchema>;
