import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PageUnresponsiveError,
  SelectorNotFoundError,
} from '../../../src/emulator/runtime/index.js';
import { client, type FakeEmulator, startFakeEmulator } from '../helpers/emulator.js';
import { okActions } from '../helpers/fake-runtime.js';

let emu: FakeEmulator;
let api: ReturnType<typeof client>;
let id: string;

beforeAll(async () => {
  emu = await startFakeEmulator();
  api = client(emu.url, emu.token);
  id = (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } })).body.data
    .id;
});
afterAll(async () => {
  await emu.close();
});

describe('page action validation and errors', () => {
  it('answers each action with its documented data shape', async () => {
    expect(
      (await api('POST', '/tools/navigate', { body: { session_id: id, url: 'http://127.0.0.1/' } }))
        .body,
    ).toEqual({ data: { status: 'ok' } });
    expect((await api('POST', '/tools/content', { body: { session_id: id } })).body.data).toEqual({
      content: expect.stringContaining('<html'),
    });
    expect(
      (await api('POST', '/tools/screenshot', { body: { session_id: id } })).body.data,
    ).toEqual({ screenshot: 'iVBORw==', format: 'png' });
    expect((await api('POST', '/tools/pdf', { body: { session_id: id } })).body.data).toEqual({
      pdf: Buffer.from('%PDF-1.4').toString('base64'),
      format: 'pdf',
    });
    expect(
      (await api('POST', '/tools/execute-code', { body: { session_id: id, code: '1+1' } })).body
        .data,
    ).toEqual({ result: { ran: '1+1' } });
    for (const [path, body] of [
      ['click', { selector: '#a' }],
      ['type', { selector: '#a', text: 'hi' }],
      ['scroll', { x: 0, y: 100 }],
    ] as const) {
      expect((await api('POST', `/sessions/${id}/${path}`, { body })).body).toEqual({
        data: { status: 'ok' },
      });
    }
  });

  it('answers a missing or mistyped field with 400 naming it', async () => {
    for (const [path, body, field] of [
      ['/tools/content', {}, 'session_id'],
      ['/tools/content', { session_id: 5 }, 'session_id'],
      ['/tools/navigate', { session_id: id }, 'url'],
      ['/tools/navigate', { session_id: id, url: 'not a url' }, 'url'],
      ['/tools/execute-code', { session_id: id }, 'code'],
      [`/sessions/${id}/click`, {}, 'selector'],
      [`/sessions/${id}/type`, { selector: 'a' }, 'text'],
      [`/sessions/${id}/scroll`, { x: 1, y: '2' }, 'y'],
    ] as const) {
      const res = await api('POST', path, { body });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error).toContain(field);
    }
  });

  it('answers an unknown session with 404', async () => {
    expect((await api('POST', '/tools/content', { body: { session_id: 'nope' } })).status).toBe(
      404,
    );
    expect((await api('POST', '/sessions/nope/scroll', { body: { x: 0, y: 0 } })).status).toBe(404);
  });

  it('answers 502 when the page does not respond and 400 when the selector matches nothing', async () => {
    emu.control.actions = {
      ...okActions(),
      content: async () => {
        throw new PageUnresponsiveError('timed out');
      },
      click: async () => {
        throw new SelectorNotFoundError('No element matches "#missing"');
      },
    };
    try {
      expect((await api('POST', '/tools/content', { body: { session_id: id } })).status).toBe(502);
      const click = await api('POST', `/sessions/${id}/click`, { body: { selector: '#missing' } });
      expect(click.status).toBe(400);
      expect(click.body.error).toContain('#missing');
    } finally {
      emu.control.actions = okActions();
    }
  });

  it('answers an action on an ended session with 409', async () => {
    const ended = (await api('POST', '/sessions', { body: { proxy_password: emu.proxyPassword } }))
      .body.data.id;
    await api('DELETE', `/sessions/${ended}`);
    const res = await api('POST', '/tools/content', { body: { session_id: ended } });
    expect(res.status).toBe(409);
    expect(res.body.error).toContain('ended');
  });

  it('navigates only to http(s), about: and data: URLs: file:///etc/passwd is a 400 naming url', async () => {
    const navigated: string[] = [];
    emu.control.actions = {
      ...okActions(),
      navigate: async (url) => void navigated.push(url),
    };
    try {
      for (const url of ['file:///etc/passwd', 'chrome://settings', 'view-source:http://x/']) {
        const res = await api('POST', '/tools/navigate', { body: { session_id: id, url } });
        expect(res.status, url).toBe(400);
        expect(res.body.error).toMatch(/^url /);
      }
      expect(navigated).toEqual([]);
      const allowed = ['http://a.test/', 'https://a.test/', 'about:blank', 'data:text/html,hi'];
      for (const url of allowed) {
        const res = await api('POST', '/tools/navigate', { body: { session_id: id, url } });
        expect(res.status, url).toBe(200);
      }
      expect(navigated).toEqual(allowed);
    } finally {
      emu.control.actions = okActions();
    }
  });
});
