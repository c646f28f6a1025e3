/**
 * A tiny method + path-pattern router. Routes are registered by route modules, each under a
 * prefix, so another service (the account API under `/api/v2/base`) can be mounted on the same
 * server without this file knowing about it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorWording, errorReply, flatWording, HttpError } from './http-error.js';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  /** Full pathname, prefix included. */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; `undefined` when the request had none. */
  body: unknown;
  /** `http://host:port` of this server, for URLs handed back to clients. */
  origin: string;
}

/** A JSON answer; status defaults to 200. */
export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Writes `reply` as JSON, unless an answer was already sent. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
  res.writeHead(reply.status ?? 200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...reply.headers,
  });
  res.end(payload);
}

/**
 * Answers an error on `res`, for a listener that writes its own response (the CDP proxy's and
 * the live view's HTTP, a `debugger_address`): the same answer a route's thrown error gets.
 * True: the request was handled.
 */
export function sendError(res: ServerResponse, status: number, message: string): true {
  sendReply(res, errorReply(new HttpError(status, message)));
  return true;
}

/** Returns a JSON reply, or `undefined` when the handler wrote the response itself (streams). */
export type RouteHandler = (ctx: RouteContext) => Promise<Reply | undefined> | Reply | undefined;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

/** What a route module sees: add routes relative to its mount prefix. */
export interface RouteRegistrar {
  add(method: Method, pattern: string, handler: RouteHandler): void;
}

/** A group of routes mounted under one prefix (`/api/v2/browser`, `/_emulator`, ...). */
export interface RouteModule {
  prefix: string;
  register(routes: RouteRegistrar): void;
  /**
   * How this service words every error under its prefix, its routes' and the server's own
   * (malformed JSON, a body too large, an unknown route, a refused request). Default: the
   * browser service's flat `{ error, ...extra }`.
   */
  errorWording?: ErrorWording;
  /**
   * Whether injected faults skip this module's routes; default false. The admin API sets it, so
   * a test can always clear what it injected.
   */
  faultFree?: boolean;
}

interface Route {
  method: Method;
  segments: string[];
  handler: RouteHandler;
}

export interface RouteMatch {
  handler: RouteHandler;
  params: Record<string, string>;
}

export class Router {
  readonly #routes: Route[] = [];
  readonly #wordings: { prefix: string; wording: ErrorWording }[] = [];
  readonly #faultFree: string[] = [];

  add(method: Method, pattern: string, handler: RouteHandler): void {
    this.#routes.push({ method, segments: split(pattern), handler });
  }

  mount(module: RouteModule): void {
    const prefix = module.prefix.replace(/\/+$/, '');
    module.register({
      add: (method, pattern, handler) => this.add(method, `${prefix}${pattern}`, handler),
    });
    if (module.errorWording) this.#wordings.push({ prefix, wording: module.errorWording });
    if (module.faultFree) this.#faultFree.push(prefix);
  }

  /** Whether `pathname` is under a module that faults never apply to. */
  isFaultFree(pathname: string): boolean {
    return this.#faultFree.some((prefix) => pathname.startsWith(`${prefix}/`));
  }

  /** How errors under `pathname` are worded: its module's own way, else the flat shape. */
  errorWordingFor(pathname: string): ErrorWording {
    const own = this.#wordings.find(({ prefix }) => pathname.startsWith(`${prefix}/`));
    return own?.wording ?? flatWording;
  }

  match(method: string, pathname: string): RouteMatch | undefined {
    const parts = split(pathname);
    // HEAD is answered by the GET route (node:http drops the body of a HEAD response).
    const wanted = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
    for (const candidate of wanted) {
      for (const route of this.#routes) {
        if (route.method !== candidate) continue;
        const params = matchSegments(route.segments, parts);
        if (params) return { handler: route.handler, params };
      }
    }
    return undefined;
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i] as string;
    const got = parts[i] as string;
    if (want.startsWith(':')) {
      // The server matches only paths parseTarget has decoded whole, so each segment decodes.
      params[want.slice(1)] = decodeURIComponent(got);
    } else if (want !== got) {
      return undefined;
    }
  }
  return params;
}
