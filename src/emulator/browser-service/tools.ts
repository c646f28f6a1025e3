/**
 * Page actions: `/tools/*` (session id in the body) and `/sessions/{id}/click|type|scroll`.
 * Each one counts as activity for the idle timeout, like CDP traffic.
 */

import {
  NavigationError,
  type PageActions,
  PageScriptError,
  PageUnresponsiveError,
  SelectorNotFoundError,
} from '../runtime/index.js';
import { badRequest, conflict, HttpError } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import { authenticate } from './auth.js';
import type { BrowserServiceContext } from './context.js';
import type { Account, SessionRecord } from './model.js';
import { objectBody, requiredNumber, requiredString } from './request-body.js';
import { findSession } from './sessions.js';

type Action = (actions: PageActions, body: Record<string, unknown>) => Promise<unknown>;

const ok = { status: 'ok' };

/** A page action opens web pages only: never `file:`, `chrome:`, `view-source:`... */
const NAVIGABLE_SCHEMES = new Set(['http:', 'https:', 'about:', 'data:']);

const CLIENT_ERRORS = new Set(['SelectorNotFoundError', 'PageScriptError', 'NavigationError']);

/** `/tools/<name>`: body `{ session_id, ... }`. Fields are read before the session is looked up. */
const TOOLS: Record<string, (body: Record<string, unknown>) => Action> = {
  navigate: (body) => {
    const url = requiredString(body, 'url');
    if (!URL.canParse(url)) throw badRequest('url must be an absolute URL');
    if (!NAVIGABLE_SCHEMES.has(new URL(url).protocol)) {
      throw badRequest('url must be an http(s), about: or data: URL');
    }
    return async (a) => {
      await a.navigate(url);
      return ok;
    };
  },
  content: () => async (a) => ({ content: await a.content() }),
  screenshot: () => async (a) => ({
    screenshot: (await a.screenshot()).toString('base64'),
    format: 'png',
  }),
  'execute-code': (body) => {
    const code = requiredString(body, 'code');
    return async (a) => ({ result: (await a.executeCode(code)) ?? null });
  },
  pdf: () => async (a) => ({ pdf: (await a.pdf()).toString('base64'), format: 'pdf' }),
};

/** `/sessions/{id}/<name>`. */
const SESSION_ACTIONS: Record<string, (body: Record<string, unknown>) => Action> = {
  click: (body) => {
    const selector = requiredString(body, 'selector');
    return async (a) => {
      await a.click(selector);
      return ok;
    };
  },
  type: (body) => {
    const selector = requiredString(body, 'selector');
    const text = requiredString(body, 'text');
    return async (a) => {
      await a.type(selector, text);
      return ok;
    };
  },
  scroll: (body) => {
    const x = requiredNumber(body, 'x');
    const y = requiredNumber(body, 'y');
    return async (a) => {
      await a.scroll(x, y);
      return ok;
    };
  },
};

export function registerToolRoutes(routes: RouteRegistrar, ctx: BrowserServiceContext): void {
  for (const [name, prepare] of Object.entries(TOOLS)) {
    routes.add('POST', `/tools/${name}`, async ({ req, body }) => {
      const account = authenticate(ctx, req);
      const fields = objectBody(body);
      const sessionId = requiredString(fields, 'session_id');
      const action = prepare(fields);
      return { body: { data: await run(ctx, account, sessionId, action, fields) } };
    });
  }
  for (const [name, prepare] of Object.entries(SESSION_ACTIONS)) {
    routes.add('POST', `/sessions/:id/${name}`, async ({ req, body, params }) => {
      const account = authenticate(ctx, req);
      const fields = objectBody(body);
      const action = prepare(fields);
      return { body: { data: await run(ctx, account, params.id as string, action, fields) } };
    });
  }
}

async function run(
  ctx: BrowserServiceContext,
  account: Account,
  sessionId: string,
  action: Action,
  body: Record<string, unknown>,
): Promise<unknown> {
  const session = findSession(ctx, account, sessionId);
  const browser = session.browser;
  if (session.status !== 'running' || !browser) throw endedError(session);
  ctx.sessions.touch(session);
  try {
    return await action(browser.actions, body);
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
  const name = error instanceof Error ? error.name : '';
  // The caller's own mistakes: a selector that matches nothing, a script that throws, a URL
  // Chromium cannot load. The message is the page's or Chromium's text, useful to fix the call.
  if (
    error instanceof SelectorNotFoundError ||
    error instanceof PageScriptError ||
    error instanceof NavigationError ||
    CLIENT_ERRORS.has(name)
  ) {
    return badRequest((error as Error).message || 'The page action was rejected');
  }
  if (session.status !== 'running') return endedError(session);
  if (error instanceof PageUnresponsiveError || name === 'PageUnresponsiveError') {
    return new HttpError(502, 'The browser or page did not respond');
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new HttpError(502, `The page action failed: ${reason}`);
}
