/**
 * The wire shapes of a session, in one place (list, single fetch, create), each typed as the
 * client's schema of that answer reads it: a field renamed in the contract fails here.
 */
import type { z } from 'zod';
import type {
  SessionCreatedSchema,
  SessionSchema,
  SessionSummarySchema,
} from '../../browser-api/schemas/sessions.js';
import { HttpError } from '../server/http-error.js';
import type { BrowserServiceContext } from './context.js';
import type { SessionRecord } from './model.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function cdpUrlOf(ctx: BrowserServiceContext, session: SessionRecord): string | undefined {
  return session.status === 'running'
    ? ctx.proxy.cdpUrl(session.id, session.accessToken)
    : undefined;
}

/** List item: no `cdp_url`, on purpose (a list must not hand out every session's access). */
export function sessionSummary(session: SessionRecord): z.input<typeof SessionSummarySchema> {
  return {
    id: session.id,
    status: session.status,
    created_at: iso(session.createdAt),
    config: session.config,
  };
}

export function sessionDetail(
  ctx: BrowserServiceContext,
  session: SessionRecord,
): z.input<typeof SessionSchema> {
  const cdpUrl = cdpUrlOf(ctx, session);
  return {
    ...sessionSummary(session),
    ended_at: session.endedAt === null ? null : iso(session.endedAt),
    ...(cdpUrl ? { cdp_url: cdpUrl } : {}),
  };
}

/** A create's answer; a browser that ended before it could be handed over is a 502 to retry. */
export function sessionCreated(
  ctx: BrowserServiceContext,
  session: SessionRecord,
): z.input<typeof SessionCreatedSchema> {
  const cdpUrl = cdpUrlOf(ctx, session);
  if (cdpUrl === undefined) {
    throw new HttpError(502, 'The browser ended before it could be handed over; retry the request');
  }
  return { id: session.id, cdp_url: cdpUrl, status: session.status };
}
