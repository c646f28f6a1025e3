/** Schemas of `GET /sessions/{id}/recordings`. */
import { z } from 'zod';
import { IdSchema, TimestampSchema } from './vocabulary.js';

export const RecordingSchema = z.looseObject({
  id: IdSchema,
  is_primary: z.boolean(),
  duration_seconds: z.number().nonnegative(),
  size_bytes: z.number().int().nonnegative(),
  /** Signed and short-lived (about 10 minutes): fetch it when you play or download, not before. */
  video_url: z.string().regex(/^https?:\/\//i, 'must be an http(s) URL'),
  video_url_expires_at: TimestampSchema,
});
export type Recording = z.infer<typeof RecordingSchema>;
