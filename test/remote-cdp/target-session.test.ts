import { describe, expect, it } from 'vitest';
import {
  type TargetRoute,
  TargetSession,
  TargetSessionClosedError,
} from '../../src/remote-cdp/target-session.js';

/** A target session over a recorded transport, attached as S1: what it sends, and a way to answer. */
function session() {
  const sent: { id: number; method: string; params: unknown }[] = [];
  let detached = 0;
  const target = new TargetSession('T1', {
    early: false,
    sendToTarget: async (route, message) => {
      expect(route).toEqual({ sessionId: 'S1' });
      sent.push(JSON.parse(message));
    },
    onDetach: async (sessionId) => {
      expect(sessionId).toBe('S1');
      detached++;
    },
  });
  target.attached('S1');
  return { target, sent, detachedCount: () => detached };
}

/** A session whose attach is not answered yet: every message with its route. */
function unattached(early: boolean) {
  const sent: { route: TargetRoute; method: string }[] = [];
  const target = new TargetSession('T1', {
    early,
    sendToTarget: async (route, message) => {
      sent.push({ route, method: JSON.parse(message).method });
    },
    onDetach: async () => {},
  });
  return { target, sent };
}

describe('TargetSession', () => {
  it('sends typed commands as non-flat messages and resolves with the matching reply', async () => {
    const { target, sent } = session();
    const answer = target.send('Runtime.evaluate', { expression: '1 + 1' });
    await Promise.resolve();
    expect(sent).toEqual([{ id: 1, method: 'Runtime.evaluate', params: { expression: '1 + 1' } }]);
    target.receive(JSON.stringify({ id: 1, result: { result: { type: 'number', value: 2 } } }));
    expect((await answer).result.value).toBe(2);
  });

  it('rejects with the protocol error a reply carries, naming the method', async () => {
    const { target } = session();
    const answer = target.send('Page.getFrameTree');
    target.receive(JSON.stringify({ id: 1, error: { message: 'Not attached' } }));
    await expect(answer).rejects.toThrow('Page.getFrameTree: Not attached');
  });

  it('on close, every pending and later call rejects with the ONE stored reason', async () => {
    const { target } = session();
    const a = target.send('Runtime.enable');
    const b = target.send('Page.enable');
    const reason = new TargetSessionClosedError('target T1 went away');
    target.close(reason);
    target.close(new Error('a second reason is ignored'));
    await expect(a).rejects.toBe(reason);
    await expect(b).rejects.toBe(reason);
    await expect(target.send('Runtime.enable')).rejects.toBe(reason);
    expect(target.closedReason).toBe(reason);
  });

  it('detach() rejects pending calls and ends the session in the browser once', async () => {
    const { target, detachedCount } = session();
    const pending = target.send('Runtime.enable');
    await target.detach();
    await target.detach();
    await expect(pending).rejects.toThrow(/detached/);
    expect(detachedCount()).toBe(1);
  });

  it('drops what a hostile target sends (not JSON, unknown ids) and guards its event handlers', () => {
    const { target } = session();
    const seen: unknown[] = [];
    target.on('Runtime.bindingCalled', (e) => {
      seen.push(e.payload);
      throw new TypeError("Cannot read properties of null (reading 'id')");
    });
    expect(() => target.receive('not json')).not.toThrow();
    expect(() => target.receive(JSON.stringify({ id: 99, result: {} }))).not.toThrow();
    expect(() =>
      target.receive(
        JSON.stringify({ method: 'Runtime.bindingCalled', params: { name: 'b', payload: 'null' } }),
      ),
    ).not.toThrow();
    expect(seen).toEqual(['null']);
  });

  it('stops delivering an event once its listener is removed', () => {
    const { target } = session();
    const seen: unknown[] = [];
    const off = target.on('Runtime.executionContextDestroyed', (e) => seen.push(e));
    target.receive(
      JSON.stringify({
        method: 'Runtime.executionContextDestroyed',
        params: { executionContextId: 1 },
      }),
    );
    off();
    target.receive(
      JSON.stringify({
        method: 'Runtime.executionContextDestroyed',
        params: { executionContextId: 2 },
      }),
    );
    expect(seen).toHaveLength(1);
  });

  it('before the attach answers, sends by target id when it may, and otherwise holds its commands', async () => {
    const first = unattached(true);
    void first.target.send('Page.enable');
    first.target.attached('S1');
    void first.target.send('Runtime.enable');
    await Promise.resolve();
    expect(first.sent).toEqual([
      { route: { targetId: 'T1' }, method: 'Page.enable' },
      { route: { sessionId: 'S1' }, method: 'Runtime.enable' },
    ]);

    const second = unattached(false);
    void second.target.send('Page.enable');
    void second.target.send('Runtime.enable');
    await Promise.resolve();
    expect(second.sent).toEqual([]);
    second.target.attached('S2');
    expect(second.sent).toEqual([
      { route: { sessionId: 'S2' }, method: 'Page.enable' },
      { route: { sessionId: 'S2' }, method: 'Runtime.enable' },
    ]);
  });

  it('a held command rejects with the close reason and never goes out', async () => {
    const { target, sent } = unattached(false);
    const held = target.send('Page.enable');
    const reason = new TargetSessionClosedError('refused');
    target.close(reason);
    target.attached('S1');
    await expect(held).rejects.toBe(reason);
    expect(sent).toEqual([]);
    expect(await target.closed).toBe(reason);
  });

  it('a command the browser-level session cannot send rejects with its error', async () => {
    const target = new TargetSession('T1', {
      early: true,
      sendToTarget: () => Promise.reject(new Error('connection closed')),
      onDetach: async () => {},
    });
    await expect(target.send('Page.enable')).rejects.toThrow('connection closed');
  });

  it('a flat session sends each command on the connection, routes its events, and rejects pending calls on close', async () => {
    const sent: { method: string; params: object }[] = [];
    let answer: ((result: unknown) => void) | undefined;
    const target = new TargetSession(
      'T1',
      {
        sendFlat: (method, params) => {
          sent.push({ method, params });
          if (method === 'Runtime.evaluate')
            return new Promise((resolve) => {
              answer = resolve;
            });
          if (method === 'Page.reload') return Promise.reject(new Error('Page.reload: no page'));
          return Promise.resolve({ ok: method });
        },
        onDetach: async () => {},
      },
      'F1',
    );
    expect(target.sessionId).toBe('F1');
    expect(await target.send('Page.enable')).toEqual({ ok: 'Page.enable' });
    await expect(target.send('Page.reload')).rejects.toThrow('Page.reload: no page');
    const events: unknown[] = [];
    target.on('Page.loadEventFired', (e) => events.push(e));
    target.event('Page.loadEventFired', { timestamp: 1 });
    expect(events).toEqual([{ timestamp: 1 }]);

    const pending = target.send('Runtime.evaluate', { expression: '1' });
    target.close(new TargetSessionClosedError('gone'));
    await expect(pending).rejects.toThrow('gone');
    answer?.({ late: true }); // an answer after the close changes nothing
    await expect(target.send('Page.enable')).rejects.toThrow('gone');
    expect(sent.map((m) => m.method)).toEqual(['Page.enable', 'Page.reload', 'Runtime.evaluate']);
  });
});
