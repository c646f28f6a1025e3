import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  isRequestValidationError,
  NotFoundError,
  type ResponseValidationError,
  UpstreamError,
} from '../../src/http/errors.js';
import { json } from '../helpers/http-server.js';
import { type ApiFixture, ok, startApi, wireBody, wirePath } from './api-server.js';

let f: ApiFixture;
beforeAll(async () => {
  f = await startApi();
});
afterAll(() => f.close());
afterEach(() => {
  f.server.requests.length = 0;
});

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const PDF = Buffer.from('%PDF-1.7 test');
const sent = () => f.server.requests.map((r) => [`${r.method} ${wirePath(r)}`, wireBody(r)]);

describe('tools', () => {
  it('posts session_id in the body for navigate, content, screenshot, execute-code and pdf', async () => {
    f.server.respond(
      ok({ status: 'ok' }),
      ok({ content: '<html></html>' }),
      ok({ screenshot: PNG.toString('base64'), format: 'png' }),
      ok({ result: { a: [1, 2] } }),
      ok({ pdf: PDF.toString('base64'), format: 'pdf' }),
    );
    expect(await f.api.tools.navigate({ session_id: 's-1', url: 'http://127.0.0.1/x' })).toEqual({
      status: 'ok',
    });
    expect(await f.api.tools.content({ session_id: 's-1' })).toBe('<html></html>');
    expect((await f.api.tools.screenshot({ session_id: 's-1' })).equals(PNG)).toBe(true);
    expect(
      await f.api.tools.executeCode<{ a: number[] }>({ session_id: 's-1', code: '({a:[1,2]})' }),
    ).toEqual({ a: [1, 2] });
    expect((await f.api.tools.pdf({ session_id: 's-1' })).equals(PDF)).toBe(true);
    expect(sent()).toEqual([
      ['POST /tools/navigate', { session_id: 's-1', url: 'http://127.0.0.1/x' }],
      ['POST /tools/content', { session_id: 's-1' }],
      ['POST /tools/screenshot', { session_id: 's-1' }],
      ['POST /tools/execute-code', { session_id: 's-1', code: '({a:[1,2]})' }],
      ['POST /tools/pdf', { session_id: 's-1' }],
    ]);
  });

  it('moves session_id into the path for click, type and scroll', async () => {
    f.server.respond(ok({ status: 'ok' }));
    await f.api.tools.click({ session_id: 's 1', selector: '#go' });
    await f.api.tools.type({ session_id: 's 1', selector: 'input', text: '' });
    await f.api.tools.scroll({ session_id: 's 1', x: 0, y: 250.5 });
    expect(sent()).toEqual([
      ['POST /sessions/s%201/click', { selector: '#go' }],
      ['POST /sessions/s%201/type', { selector: 'input', text: '' }],
      ['POST /sessions/s%201/scroll', { x: 0, y: 250.5 }],
    ]);
  });

  it('returns null and primitive script values as they are', async () => {
    f.server.respond(ok({ result: null }), ok({ result: 42 }), ok({ result: 'x' }));
    expect(await f.api.tools.executeCode({ session_id: 's', code: 'null' })).toBeNull();
    expect(await f.api.tools.executeCode({ session_id: 's', code: '42' })).toBe(42);
    expect(await f.api.tools.executeCode({ session_id: 's', code: '"x"' })).toBe('x');
  });

  it('rejects missing or mistyped fields before any request', async () => {
    for (const [call, message] of [
      [
        () => f.api.tools.navigate({ session_id: 's' } as never),
        'tools.navigate: invalid request: url: is required',
      ],
      [() => f.api.tools.content({ session_id: '' }), 'session_id: must not be empty'],
      [() => f.api.tools.click({ session_id: 's', selector: '' }), 'selector: must not be empty'],
      [() => f.api.tools.type({ session_id: 's', selector: 'a' } as never), 'text: is required'],
      [
        () => f.api.tools.scroll({ session_id: 's', x: '1' as never, y: 0 }),
        'x: must be a number (got "1")',
      ],
      [() => f.api.tools.executeCode({ session_id: 's', code: '' }), 'code: must not be empty'],
    ] as const) {
      const error = await call().catch((e: unknown) => e);
      expect(isRequestValidationError(error)).toBe(true);
      expect((error as Error).message).toContain(message);
    }
    expect(f.server.requests).toHaveLength(0);
  });

  it('does not retry a page action after a 502 from the browser', async () => {
    f.server.respond(json(502, { error: 'page did not respond' }));
    await expect(f.api.tools.click({ session_id: 's', selector: 'a' })).rejects.toBeInstanceOf(
      UpstreamError,
    );
    expect(f.server.requests).toHaveLength(1);
  });

  it('maps an unknown session to NotFoundError', async () => {
    f.server.respond(json(404, { error: 'session not found' }));
    await expect(f.api.tools.content({ session_id: 'gone' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rejects a screenshot that is not base64 PNG', async () => {
    f.server.respond(
      ok({ screenshot: 'not base64!', format: 'png' }),
      ok({ screenshot: PNG.toString('base64'), format: 'jpeg' }),
    );
    const e1 = (await f.api.tools
      .screenshot({ session_id: 's' })
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(e1.field).toBe('screenshot');
    const e2 = (await f.api.tools
      .screenshot({ session_id: 's' })
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(e2.field).toBe('format');
  });
});
