import { describe, expect, it } from 'vitest';
import { parsePageMessage } from '../../src/remote-cdp/websocket-messages.js';

describe('parsePageMessage', () => {
  it('accepts the three ops a page script sends', () => {
    expect(
      parsePageMessage('{"op":"open","id":1,"url":"ws://localhost:3000/ws","protocols":["a"]}'),
    ).toEqual({
      ok: true,
      message: { op: 'open', id: 1, url: 'ws://localhost:3000/ws', protocols: ['a'] },
    });
    expect(parsePageMessage('{"op":"send","id":2,"text":"hi"}').ok).toBe(true);
    expect(parsePageMessage('{"op":"close","id":2,"code":4000,"reason":"done"}').ok).toBe(true);
  });

  it.each([
    ['null', 'message'],
    ['not json', 'not JSON'],
    ['{"id":null}', 'op'],
    ['{"op":"open"}', 'id'],
    ['{"op":"open","id":1,"url":5,"protocols":[]}', 'url'],
    ['{"op":"send","id":1,"base64":5}', 'base64'],
    ['{"op":"close","id":1,"code":99}', 'code'],
    ['{"op":"eval","id":1}', 'op'],
    ['[]', 'message'],
  ])('drops %s, saying which field', (payload, field) => {
    const parsed = parsePageMessage(payload);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.reason).toContain(field);
  });
});
