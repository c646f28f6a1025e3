import { describe, expect, it } from 'vitest';
import { TargetSession, TargetSessionClosedError } from '../../src/remote-cdp/target-session.js';

/** A target session over a recorded transport: what it sends, and a way to answer. */
function session() {
  const sent: { id: number; method: string; params: unknown }[] = [];
  let detached = 0;
  const target = new TargetSession(
    'T1',
    'S1',
    async (sessionId, message) => {
      expect(sessionId).toBe('S1');
      sent.push(JSON.parse(message));
    },
    async () => {
      detached++;
    },
  );
  return { target, sent, detachedCount: () => detached };
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
});
