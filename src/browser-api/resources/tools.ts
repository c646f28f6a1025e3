/**
 * Page actions run by the service on a session's current page. Wire field names; click, type
 * and scroll put the session id in the path as the service expects. None is retried: a
 * repeated click or typed text is not harmless, and even navigate and execute-code change the
 * page.
 */

import type { z } from 'zod';
import type { CallOptions } from '../../http/call-options.js';
import { idSegment } from '../../http/path.js';
import { parseWire } from '../../http/request-validation.js';
import { Resource } from '../../http/resource.js';
import {
  type ActionOk,
  ActionOkSchema,
  type ClickParams,
  ClickParamsSchema,
  ContentResultSchema,
  type ExecuteCodeParams,
  ExecuteCodeParamsSchema,
  ExecuteCodeResultSchema,
  type NavigateParams,
  NavigateParamsSchema,
  PdfResultSchema,
  ScreenshotResultSchema,
  type ScrollParams,
  ScrollParamsSchema,
  type SessionParams,
  SessionParamsSchema,
  type TypeParams,
  TypeParamsSchema,
} from '../schemas/tools.js';

export class Tools extends Resource {
  async navigate(params: NavigateParams, opts: CallOptions = {}): Promise<ActionOk> {
    return this.#post(
      'tools.navigate',
      '/tools/navigate',
      NavigateParamsSchema,
      params,
      ActionOkSchema,
      opts,
    );
  }

  /** The full rendered HTML. */
  async content(params: SessionParams, opts: CallOptions = {}): Promise<string> {
    const data = await this.#post(
      'tools.content',
      '/tools/content',
      SessionParamsSchema,
      params,
      ContentResultSchema,
      opts,
    );
    return data.content;
  }

  /** PNG bytes, decoded from the service's base64. */
  async screenshot(params: SessionParams, opts: CallOptions = {}): Promise<Buffer> {
    const data = await this.#post(
      'tools.screenshot',
      '/tools/screenshot',
      SessionParamsSchema,
      params,
      ScreenshotResultSchema,
      opts,
    );
    return Buffer.from(data.screenshot, 'base64');
  }

  /** Runs `code` in the page and returns its value as JSON; `T` is the caller's claim, unchecked. */
  async executeCode<T = unknown>(params: ExecuteCodeParams, opts: CallOptions = {}): Promise<T> {
    const data = await this.#post(
      'tools.executeCode',
      '/tools/execute-code',
      ExecuteCodeParamsSchema,
      params,
      ExecuteCodeResultSchema,
      opts,
    );
    return data.result as T;
  }

  /** PDF bytes, decoded from the service's base64. */
  async pdf(params: SessionParams, opts: CallOptions = {}): Promise<Buffer> {
    const data = await this.#post(
      'tools.pdf',
      '/tools/pdf',
      SessionParamsSchema,
      params,
      PdfResultSchema,
      opts,
    );
    return Buffer.from(data.pdf, 'base64');
  }

  async click(params: ClickParams, opts: CallOptions = {}): Promise<ActionOk> {
    return this.#inSession('tools.click', 'click', ClickParamsSchema, params, opts);
  }

  async type(params: TypeParams, opts: CallOptions = {}): Promise<ActionOk> {
    return this.#inSession('tools.type', 'type', TypeParamsSchema, params, opts);
  }

  async scroll(params: ScrollParams, opts: CallOptions = {}): Promise<ActionOk> {
    return this.#inSession('tools.scroll', 'scroll', ScrollParamsSchema, params, opts);
  }

  async #post<S extends z.ZodType>(
    what: string,
    path: string,
    paramsSchema: z.ZodType,
    params: unknown,
    schema: S,
    opts: CallOptions,
  ): Promise<z.output<S>> {
    return this.transport.request({
      ...opts,
      what,
      method: 'POST',
      path,
      body: parseWire(what, paramsSchema, params, 'params'),
      schema: schema as z.ZodType<z.output<S>>,
    });
  }

  /** `session_id` moves from the params into the path. */
  async #inSession(
    what: string,
    action: string,
    paramsSchema: z.ZodType,
    params: SessionParams,
    opts: CallOptions,
  ): Promise<ActionOk> {
    const { session_id, ...body } = parseWire(
      what,
      paramsSchema,
      params,
      'params',
    ) as SessionParams;
    return this.transport.request({
      ...opts,
      what,
      method: 'POST',
      path: `/sessions/${idSegment(what, 'session_id', session_id)}/${action}`,
      body,
      schema: ActionOkSchema,
    });
  }
}
