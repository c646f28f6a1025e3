/** `/sessions` and `/sessions-async`: create, inspect, connect to and end browser sessions. */

import type { CallOptions } from '../../http/call-options.js';
import { zod } from '../../http/lazy-schema.js';
import { idSegment } from '../../http/path.js';
import { registerSecret } from '../../http/redact.js';
import { parseWire, rejectField, shown } from '../../http/request-validation.js';
import { Resource } from '../../http/resource.js';
import type { Transport } from '../../http/transport.js';
import { hideCdpUrl, hideCdpUrlsWithin } from '../cdp-url.js';
import {
  type AsyncSessionCreated,
  AsyncSessionCreatedSchema,
  type AsyncSessionRequest,
  AsyncSessionRequestSchema,
  type Page,
  PageSchema,
  type Session,
  type SessionConnection,
  SessionConnectionSchema,
  type SessionCreated,
  SessionCreatedSchema,
  type SessionCreateParams,
  SessionCreateParamsSchema,
  type SessionEnded,
  SessionEndedSchema,
  type SessionListParams,
  SessionListParamsSchema,
  SessionSchema,
  type SessionSummary,
  SessionSummarySchema,
} from '../schemas/sessions.js';
import { type WaitForAsyncOptions, waitForAsync } from './async-sessions.js';
import { Recordings } from './recordings.js';

export class Sessions extends Resource {
  readonly recordings: Recordings;
  readonly #proxyPassword: string | undefined;

  constructor(transport: Transport, proxyPassword: string | undefined) {
    super(transport);
    this.#proxyPassword = proxyPassword;
    this.recordings = new Recordings(transport);
  }

  /**
   * Launches a browser (billed). Never retried: a create whose response was lost may still
   * have made a session, which a blind retry would double; reconcile with `list()` instead, or
   * use `createAsync()` whose `request_id` can be polled.
   */
  async create(body: SessionCreateParams, opts: CallOptions = {}): Promise<SessionCreated> {
    const what = 'sessions.create';
    const wire = this.#body(what, body);
    const created = await this.transport.request({
      ...opts,
      what,
      method: 'POST',
      path: '/sessions',
      body: wire,
      idempotent: false,
      schema: SessionCreatedSchema,
    });
    return hideCdpUrl(created);
  }

  /** Queues a creation and returns its `request_id` at once; poll it with `waitForAsync()`. */
  async createAsync(
    body: SessionCreateParams,
    opts: CallOptions = {},
  ): Promise<AsyncSessionCreated> {
    const what = 'sessions.createAsync';
    return this.transport.request({
      ...opts,
      what,
      method: 'POST',
      path: '/sessions-async',
      body: this.#body(what, body),
      idempotent: false,
      schema: AsyncSessionCreatedSchema,
    });
  }

  /** One poll of an asynchronous creation; the body's shape is the service's (not specified). */
  async retrieveAsync(requestId: string, opts: CallOptions = {}): Promise<AsyncSessionRequest> {
    const what = 'sessions.retrieveAsync';
    const result = await this.transport.request({
      ...opts,
      what,
      method: 'GET',
      path: `/sessions-async/${idSegment(what, 'request_id', requestId)}`,
      schema: AsyncSessionRequestSchema,
    });
    return hideCdpUrlsWithin(result);
  }

  /** Polls `retrieveAsync()` until the session exists; see `WaitForAsyncOptions`. */
  async waitForAsync(
    requestId: string,
    options: WaitForAsyncOptions = {},
  ): Promise<SessionCreated> {
    return waitForAsync((opts) => this.retrieveAsync(requestId, opts), requestId, options);
  }

  /** Sessions of this account, without `cdp_url` (the service omits it from the list). */
  async list(params: SessionListParams = {}, opts: CallOptions = {}): Promise<SessionSummary[]> {
    const what = 'sessions.list';
    const query = parseWire(what, SessionListParamsSchema, params, 'params');
    return this.transport.request({
      ...opts,
      what,
      method: 'GET',
      path: '/sessions',
      query: query as Record<string, string | number | undefined>,
      schema: zod().array(SessionSummarySchema),
    });
  }

  /** The full session; `cdp_url` only while running. 404 past the 3-day retention. */
  async retrieve(id: string, opts: CallOptions = {}): Promise<Session> {
    const what = 'sessions.retrieve';
    const session = await this.transport.request({
      ...opts,
      what,
      method: 'GET',
      path: `/sessions/${idSegment(what, 'id', id)}`,
      schema: SessionSchema,
    });
    return hideCdpUrl(session);
  }

  /** Everything an external client needs to attach: CDP URL, debugger address, live view. */
  async connection(id: string, opts: CallOptions = {}): Promise<SessionConnection> {
    const what = 'sessions.connection';
    const connection = await this.transport.request({
      ...opts,
      what,
      method: 'GET',
      path: `/sessions/${idSegment(what, 'id', id)}/connection`,
      schema: SessionConnectionSchema,
    });
    return hideCdpUrl(connection);
  }

  /** The session's open tabs. */
  async pages(id: string, opts: CallOptions = {}): Promise<Page[]> {
    const what = 'sessions.pages';
    return this.transport.request({
      ...opts,
      what,
      method: 'GET',
      path: `/sessions/${idSegment(what, 'id', id)}/pages`,
      schema: zod().array(PageSchema),
    });
  }

  /** Ends the session now. A DELETE, so it is retried like any idempotent call. */
  async end(id: string, opts: CallOptions = {}): Promise<SessionEnded> {
    const what = 'sessions.end';
    return this.transport.request({
      ...opts,
      what,
      method: 'DELETE',
      path: `/sessions/${idSegment(what, 'id', id)}`,
      schema: SessionEndedSchema,
    });
  }

  /** The create body with the client's proxy password filled in, checked before sending. */
  #body(what: string, body: SessionCreateParams): Record<string, unknown> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      rejectField(what, 'body', `must be an object of session fields (got ${shown(body)})`);
    }
    const proxy_password = body.proxy_password ?? this.#proxyPassword;
    if (proxy_password === undefined) {
      rejectField(
        what,
        'proxy_password',
        'is required: pass it in the body, the `proxyPassword` client option or REMOTE_BROWSER_PROXY_PASSWORD',
      );
    }
    registerSecret(proxy_password);
    return parseWire(what, SessionCreateParamsSchema, { ...body, proxy_password });
  }
}
