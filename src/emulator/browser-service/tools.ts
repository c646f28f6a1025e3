/**
 * Page actions: `/tools/*` (session id in the body) and `/sessions/{id}/click|type|scroll`.
 * Each one counts as activity for the idle timeout, like CDP traffic.
 */

import type { z } from 'zod';
import {
  ActionOkSchema,
  ClickParamsSchema,
  ContentResultSchema,
  ExecuteCodeParamsSchema,
  ExecuteCodeResultSchema,
  NavigateParamsSchema,
  PdfResultSchema,
  ScreenshotResultSchema,
  ScrollParamsSchema,
  SessionParamsSchema,
  TypeParamsSchema,
} from '../../browser-api/schemas/tools.js';
import { lazySchema } from '../../http/lazy-schema.js';
import {
  NavigationError,
  type PageActions,
  PageScriptError,
  PageUnresponsiveError,
  SelectorNotFoundError,
} from '../runtime/index.js';
import { badRequest, conflict, HttpError } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { data, parseBody } from '../server/wire.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';
import type { Account, SessionRecord } from './model.js';
import { findSession } from './sessions.js';

/** A page action: what it reads from the body, what it answers, and how it runs. */
interface Tool<P extends z.ZodType, R extends z.ZodType> {
  params: P;
  result: R;
  /** Resolves with the answer; an action that has none (void) answers `{ status: 'ok' }`. */
  run(actions: PageActions, params: z.output<P>): Promise<z.input<R>> | Promise<void>;
}

/** Typed at the definition, so `run` sees the params its schema parses and returns its answer. */
const tool = <P extends z.ZodType, R extends z.ZodType>(definition: Tool<P, R>) =>
  definition as unknown as Tool<z.ZodType, z.ZodType>;

const ok = { status: 'ok' as const };

/** A page action opens web pages only: never `file:`, `chrome:`, `view-source:`... */
const NAVIGABLE_SCHEMES = new Set(['http:', 'https:', 'about:', 'data:']);

/** The client's rule (an absolute URL) and the service's (a web page's scheme). */
const NavigateSchema = lazySchema(() =>
  NavigateParamsSchema.superRefine(({ url }, ctx) => {
    if (typeof url !== 'string' || !URL.canParse(url)) return;
    if (NAVIGABLE_SCHEMES.has(new URL(url).protocol)) return;
    ctx.addIssue({
      code: 'custom',
      path: ['url'],
      message: 'must be an http(s), about: or data: URL',
    });
  }),
);

/** `/tools/<name>`: body `{ session_id, ... }`, read whole before the session is looked up. */
const TOOLS: Record<string, Tool<z.ZodType, z.ZodType>> = {
  navigate: tool({
    params: NavigateSchema,
    result: ActionOkSchema,
    run: (a, { url }) => a.navigate(url),
  }),
  content: tool({
    params: SessionParamsSchema,
    result: ContentResultSchema,
    run: async (a) => ({ content: await a.content() }),
  }),
  screenshot: tool({
    params: SessionParamsSchema,
    result: ScreenshotResultSchema,
    run: async (a) => ({
      screenshot: (await a.screenshot()).toString('base64'),
      format: 'png' as const,
    }),
  }),
  'execute-code': tool({
    params: ExecuteCodeParamsSchema,
    result: ExecuteCodeResultSchema,
    run: async (a, { code }) => ({ result: (await a.executeCode(code)) ?? null }),
  }),
  pdf: tool({
    params: SessionParamsSchema,
    result: PdfResultSchema,
    run: async (a) => ({ pdf: (await a.pdf()).toString('base64'), format: 'pdf' as const }),
  }),
};

// The client's params without `session_id`, which moves into the path.
const ClickSchema = lazySchema(() => ClickParamsSchema.omit({ session_id: true }));
const TypeSchema = lazySchema(() => TypeParamsSchema.omit({ session_id: true }));
const ScrollSchema = lazySchema(() => ScrollParamsSchema.omit({ session_id: true }));

/** `/sessions/{id}/<name>`. */
const SESSION_ACTIONS: Record<string, Tool<z.ZodType, z.ZodType>> = {
  click: tool({
    params: ClickSchema,
    result: ActionOkSchema,
    run: (a, { selector }) => a.click(selector),
  }),
  type: tool({
    params: TypeSchema,
    result: ActionOkSchema,
    run: (a, { selector, text }) => a.type(selector, text),
  }),
  scroll: tool({
    params: ScrollSchema,
    result: ActionOkSchema,
    run: (a, { x, y }) => a.scroll(x, y),
  }),
};

export function registerToolRoutes(routes: RouteRegistrar, ctx: BrowserServiceContext): void {
  for (const [name, action] of Object.entries(TOOLS)) {
    routes.add('POST', `/tools/${name}`, async ({ req, body }) => {
      const account = authenticate(ctx, req);
      const params = parseBody(action.params, body) as { session_id: string };
      return data(action.result, await run(ctx, account, params.session_id, action, params));
    });
  }
  for (const [name, action] of Object.entries(SESSION_ACTIONS)) {
    routes.add('POST', `/sessions/:id/${name}`, async ({ req, body, params }) => {
      const account = authenticate(ctx, req);
      const fields = parseBody(action.params, body);
      return data(action.result, await run(ctx, account, params.id as string, action, fields));
    });
  }
}

async function run(
  ctx: BrowserServiceContext,
  account: Account,
  sessionId: string,
  action: Tool<z.ZodType, z.ZodType>,
  params: unknown,
): Promise<unknown> {
  const session = findSession(ctx, account, sessionId);
  const browser = session.browser;
  if (session.status !== 'running' || !browser) throw endedError(session);
  ctx.sessions.touch(session);
  try {
    return (await action.run(browser.actions, params)) ?? ok;
  } catch (error) {
    throw actionError(session, error);
  } finally {
    ctx.sessions.touch(session);
  }
}

/** An action on an ended session is a 409: the id is known, the browser is gone. */
function endedError(session: SessionRecord): HttpError {
  return conflict(`Session ${session.id} has ended; page actions need a running session`);
}

function actionError(session: SessionRecord, error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  // The caller's own mistakes: a selector that matches nothing, a script that throws, a URL
  // Chromium cannot load. The message is the page's or Chromium's text, useful to fix the call.
  if (
    error instanceof SelectorNotFoundError ||
    error instanceof PageScriptError ||
    error instanceof NavigationError
  ) {
    return badRequest(error.message || 'The page action was rejected');
  }
  if (session.status !== 'running') return endedError(session);
  if (error instanceof PageUnresponsiveError) {
    return new HttpError(502, 'The browser or page did not respond');
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new HttpError(502, `The page action failed: ${reason}`);
}
