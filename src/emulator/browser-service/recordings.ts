/**
 * `GET /sessions/{id}/recordings`: published recordings with a fresh signed `video_url` on every
 * listing. The file itself is served by `recording-files.ts`.
 */

import { RecordingSchema } from '../../browser-api/schemas/recordings.js';
import { zod } from '../../http/lazy-schema.js';
import type { RouteRegistrar } from '../server/router.js';
import { data } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';
import type { RecordingRecord } from './model.js';
import { findSession } from './sessions.js';

export const RECORDING_FILES_PREFIX = '/recording-files';

export function signedVideoUrl(
  ctx: BrowserServiceContext,
  origin: string,
  recording: RecordingRecord,
) {
  const expiresAt = ctx.clock.now() + ctx.options.videoUrlLifetimeMs;
  const sig = ctx.signer.signature(recording.id, expiresAt);
  return {
    video_url: `${origin}${RECORDING_FILES_PREFIX}/${recording.id}?expires=${expiresAt}&sig=${sig}`,
    video_url_expires_at: new Date(expiresAt).toISOString(),
  };
}

export function registerRecordingRoutes(routes: RouteRegistrar, ctx: BrowserServiceContext): void {
  routes.add('GET', '/sessions/:id/recordings', async ({ req, params, origin }) => {
    const session = findSession(ctx, authenticate(ctx, req), params.id as string);
    // The model publishes at end + delay. The emulator encodes a recording only when it is first
    // listed from then on (most never are): that encode is its own cost, which the listing waits
    // for instead of showing nothing.
    const dueAt =
      (session.endedAt ?? Number.POSITIVE_INFINITY) + ctx.options.recordingPublicationDelayMs;
    if (ctx.clock.now() >= dueAt) await session.recording?.publish();
    const recordings = ctx.store.publishedRecordings(session.id).map((recording) => ({
      id: recording.id,
      is_primary: recording.isPrimary,
      duration_seconds: recording.file.durationSeconds,
      size_bytes: recording.file.sizeBytes,
      ...signedVideoUrl(ctx, origin, recording),
    }));
    return data(zod().array(RecordingSchema), recordings);
  });
}
