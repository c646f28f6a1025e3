/** `/sessions`: create, list, fetch, connection details, pages, delete. */

import {
  PageSchema,
  SESSION_LIST_MAX_LIMIT,
  SessionConnectionSchema,
  SessionCreatedSchema,
  SessionEndedSchema,
  SessionListParamsSchema,
  SessionSchema,
  SessionSummarySchema,
} from '../../browser-api/schemas/sessions.js';
import { SessionStatusFilterSchema } from '../../browser-api/schemas/vocabulary.js';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { notFound } from '../server/http-error.js';
import { openLatencyFront } from '../server/network-model.js';
import type { RouteRegistrar } from '../server/router.js';
import { data, digits, parseQuery } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';
import type { Account, SessionRecord } from './model.js';
import { resolveCreate } from './session-request.js';
import { cdpUrlOf, sessionCreated, sessionDetail, sessionSummary } from './session-views.js';

/** `GET /sessions` page size when `limit` is absent; the largest is the client's. */
const SESSION_LIST_DEFAULT_LIMIT = 50;

export function findSession(
  ctx: BrowserServiceContext,
  account: Account,
  id: string,
): SessionRecord {
  const session = ctx.store.session(account.id, id);
  if (!session) throw notFound('Session');
  return session;
}

/** `GET /sessions`'s query: the client's rules for it, read from the strings sent. */
const ListQuerySchema = lazySchema(() =>
  zod().object({
    status: SessionStatusFilterSchema.default('all'),
    limit: digits()
      .pipe(SessionListParamsSchema.shape.limit.unwrap())
      .default(SESSION_LIST_DEFAULT_LIMIT),
  }),
);

export function registerSessionRoutes(routes: RouteRegistrar, ctx: BrowserServiceContext): void {
  routes.add('POST', '/sessions', async ({ req, body }) => {
    const account = authenticate(ctx, req);
    const session = await ctx.sessions.create(account, resolveCreate(ctx, account, body));
    return data(SessionCreatedSchema, sessionCreated(ctx, session));
  });

  routes.add('GET', '/sessions', ({ req, query }) => {
    const account = authenticate(ctx, req);
    const { status, limit } = parseQuery(ListQuerySchema, query, {
      status: `status must be one of: ${SessionStatusFilterSchema.options.join(', ')}`,
      limit: `limit must be an integer from 1 to ${SESSION_LIST_MAX_LIMIT}`,
    });
    const sessions = ctx.store
      .sessionsOf(account.id)
      .filter((s) => status === 'all' || s.status === status)
      .slice(0, limit);
    return data(zod().array(SessionSummarySchema), sessions.map(sessionSummary));
  });

  routes.add('GET', '/sessions/:id', ({ req, params }) => {
    const session = findSession(ctx, authenticate(ctx, req), params.id as string);
    return data(SessionSchema, sessionDetail(ctx, session));
  });

  routes.add('GET', '/sessions/:id/connection', async ({ req, params, origin }) => {
    const session = findSession(ctx, authenticate(ctx, req), params.id as string);
    const debuggerAddress = await openDebugger(ctx, session);
    const running = session.status === 'running';
    return data(SessionConnectionSchema, {
      id: session.id,
      status: session.status,
      cdp_url: cdpUrlOf(ctx, session) ?? null,
      debugger_address: running ? debuggerAddress : null,
      live_view_url: running ? ctx.liveView.url(origin, session.id, session.liveViewToken) : null,
      config: session.config,
    });
  });

  routes.add('GET', '/sessions/:id/pages', async ({ req, params }) => {
    const session = findSession(ctx, authenticate(ctx, req), params.id as string);
    const pages =
      session.status === 'running' && session.browser ? await session.browser.pages() : [];
    return data(zod().array(PageSchema), pages);
  });

  routes.add('DELETE', '/sessions/:id', async ({ req, params }) => {
    const session = findSession(ctx, authenticate(ctx, req), params.id as string);
    // Idempotent: deleting an ended session (within retention) is also a success.
    await ctx.sessions.end(session, 'deleted');
    return data(SessionEndedSchema, { status: 'success' });
  });
}

/** The session's own debugger listener, opened on first ask and closed when the session ends. */
async function openDebugger(
  ctx: BrowserServiceContext,
  session: SessionRecord,
): Promise<string | null> {
  if (session.status !== 'running') return null;
  session.debuggerEndpoint ??= debuggerEndpoint(ctx, session.id);
  const endpoint = await session.debuggerEndpoint;
  if (session.status !== 'running') {
    await endpoint.close().catch(() => {});
    return null;
  }
  return endpoint.address;
}

/** With a network modelled, the debugger address is reached through the same latency as the origin. */
async function debuggerEndpoint(ctx: BrowserServiceContext, sessionId: string) {
  const endpoint = await ctx.proxy.openDebuggerAddress(sessionId);
  const { rttMs } = ctx.options.network;
  if (rttMs === 0) return endpoint;
  try {
    const front = await openLatencyFront({
      target: endpoint.address,
      rttMs,
      host: '127.0.0.1',
      port: 0,
    });
    endpoint.acceptPort?.(front.port);
    return {
      address: front.address,
      cutClients: endpoint.cutClients,
      close: async () => {
        await front.close();
        await endpoint.close();
      },
    };
  } catch (error) {
    await endpoint.close();
    throw error;
  }
}
