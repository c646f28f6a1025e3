/**
 * A recording of any size without a session that made it: an ended session of the account with
 * one published recording whose file is sparse (zeros the disk never stores). For download
 * benchmarks and tests of large files, which a real five-minute session would take too long to
 * produce. Served, listed and expired like any other recording.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { notFound } from '../server/http-error.js';
import type { BrowserServiceContext } from './context.js';
import type { SessionRecord } from './model.js';
import { resolveSessionRequest } from './targeting.js';

/** Folder of synthetic recordings under the emulator's data dir; emptied on reset. */
export const SYNTHETIC_RECORDINGS_DIR = 'synthetic-recordings';

export async function addSyntheticRecording(
  ctx: BrowserServiceContext,
  accountId: string,
  sizeBytes: number,
): Promise<{ sessionId: string; recordingId: string }> {
  const account = ctx.store.accounts.get(accountId);
  if (!account) throw notFound('Account');
  const { resolved } = resolveSessionRequest(
    {},
    { account, findProfile: () => undefined, requirePassword: false },
  );
  const now = ctx.clock.now();
  const session: SessionRecord = {
    id: randomUUID(),
    accountId,
    status: 'ended',
    createdAt: now,
    endedAt: now,
    endReason: 'synthetic',
    config: resolved.config,
    accessToken: randomBytes(24).toString('base64url'),
    liveViewToken: randomBytes(32).toString('base64url'),
    idleMs: 0,
    maxMs: 0,
    lastActivityAt: now,
    timers: [],
    ending: Promise.resolve(),
  };
  const dir = join(ctx.dataDir, SYNTHETIC_RECORDINGS_DIR);
  await mkdir(dir, { recursive: true });
  const recordingId = randomUUID();
  const path = join(dir, `${recordingId}.webm`);
  const file = await open(path, 'w');
  try {
    await file.truncate(sizeBytes);
  } finally {
    await file.close();
  }
  ctx.store.sessions.set(session.id, session);
  ctx.store.recordings.set(recordingId, {
    id: recordingId,
    sessionId: session.id,
    accountId,
    isPrimary: true,
    file: { path, contentType: 'video/webm', durationSeconds: 60, sizeBytes },
    publishedAt: now,
  });
  return { sessionId: session.id, recordingId };
}
