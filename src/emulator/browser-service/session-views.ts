/** The wire shapes of a session, in one place (list, single fetch, create, connection). */

import type { BrowserServiceContext } from './context.js';
import type { SessionRecord } from './model.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function cdpUrlOf(ctx: BrowserServiceContext, session: SessionRecord): string | undefined {
  return session.status === 'running'
    ? ctx.proxy.cdpUrl(session.id, session.accessToken)
    : undefined;
}

/** List item: no `cdp_url`, on purpose (a list must not hand out every session's access). */
export function sessionSummary(session: SessionRecord) {
  return {
    id: session.id,
    status: session.status,
    created_at: iso(session.createdAt),
    config: session.config,
  };
}

export function sessionDetail(ctx: BrowserServiceContext, session: SessionRecord) {
  const cdpUrl = cdpUrlOf(ctx, session);
  return {
    id: session.id,
    status: session.status,
    created_at: iso(session.createdAt),
    ended_at: session.endedAt === null ? null : iso(session.endedAt),
    config: session.config,
    ...(cdpUrl ? { cdp_url: cdpUrl } : {}),
  };
}

export function sessionCreated(ctx: BrowserServiceContext, session: SessionRecord) {
  const cdpUrl = cdpUrlOf(ctx, session);
  return { id: session.id, ...(cdpUrl ? { cdp_url: cdpUrl } : {}), status: session.status };
}
