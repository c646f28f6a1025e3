/**
 * `/sessions-async`: the create runs in the background and its outcome is polled. The request
 * body is checked at once (a bad body is a 400 straight away, nothing is queued); the launch and
 * the concurrency limit are decided in the background and reported by the poll.
 */
import { randomUUID } from 'node:crypto';
import {
  AsyncSessionCreatedSchema,
  AsyncSessionRequestSchema,
  SessionCreatedSchema,
} from '../../browser-api/schemas/sessions.js';
import { lazySchema, zod } from '../../http/lazy-schema.js';
import { HttpError, notFound } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { data } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';
import type { AsyncCreateRecord } from './model.js';
import { resolveCreate } from './session-request.js';
import { cdpUrlOf } from './session-views.js';

/**
 * The poll's shape is not shown by the spec: the client's schema, extended with what the
 * emulator answers and `waitForAsync` reads (the created session, or why it failed).
 */
const AsyncPollSchema = lazySchema(() =>
  AsyncSessionRequestSchema.extend({
    status: zod().enum(['pending', 'completed', 'failed']),
    session: SessionCreatedSchema.partial({ cdp_url: true }).optional(),
    error: zod().string().optional(),
    error_status: zod().number().int().optional(),
  }),
);

export function registerSessionsAsyncRoutes(
  routes: RouteRegistrar,
  ctx: BrowserServiceContext,
): void {
  routes.add('POST', '/sessions-async', ({ req, body }) => {
    const account = authenticate(ctx, req);
    const request = resolveCreate(ctx, account, body);
    const record: AsyncCreateRecord = {
      id: randomUUID(),
      accountId: account.id,
      createdAt: ctx.clock.now(),
      status: 'pending',
    };
    ctx.store.asyncCreates.set(record.id, record);
    ctx.sessions.create(account, request).then(
      (session) => {
        record.status = 'completed';
        record.sessionId = session.id;
      },
      (error: unknown) => {
        record.status = 'failed';
        record.error = error instanceof HttpError ? error.message : 'The browser failed to start';
        record.errorStatus = error instanceof HttpError ? error.status : 502;
      },
    );
    return data(AsyncSessionCreatedSchema, { request_id: record.id });
  });

  routes.add('GET', '/sessions-async/:requestId', ({ req, params }) => {
    const account = authenticate(ctx, req);
    const record = ctx.store.asyncCreate(account.id, params.requestId as string);
    if (!record) throw notFound('Session request');
    const session = record.sessionId ? ctx.store.session(account.id, record.sessionId) : undefined;
    const cdpUrl = session && cdpUrlOf(ctx, session);
    return data(AsyncPollSchema, {
      request_id: record.id,
      status: record.status,
      ...(session
        ? {
            session: {
              id: session.id,
              ...(cdpUrl ? { cdp_url: cdpUrl } : {}),
              status: session.status,
            },
          }
        : {}),
      ...(record.error ? { error: record.error, error_status: record.errorStatus } : {}),
    });
  });
}
