import { describe, expect, it } from 'vitest';
import type {
  CdpCommand,
  CdpListener,
  CdpParams,
  CdpResult,
  CdpSession,
} from '../../src/remote-cdp/cdp-channel.js';
import { TargetRouting } from '../../src/remote-cdp/target-routing.js';
import { TargetSessionClosedError } from '../../src/remote-cdp/target-session.js';

interface Written {
  method: string;
  params: Record<string, unknown>;
  answer(result: unknown): void;
  fail(error: Error): void;
}

/** A browser-level session that records every write in order; the test answers each. */
function browserSession() {
  const written: Written[] = [];
  const cdp: CdpSession = {
    send<M extends CdpCommand>(method: M, ...params: CdpParams<M>): Promise<CdpResult<M>> {
      return new Promise((resolve, reject) => {
        written.push({
          method,
          params: (params[0] ?? {}) as Record<string, unknown>,
          answer: (result) => resolve(result as CdpResult<M>),
          fail: reject,
        });
      });
    },
    on: <E extends Parameters<CdpSession['on']>[0]>(_event: E, _listener: CdpListener<E>) => {
      return () => {};
    },
  };
  /** What went out: the method, and the inner method of a message to a target with its route. */
  const wire = () =>
    written.map(({ method, params }) => {
      if (method !== 'Target.sendMessageToTarget') return `${method} ${params.targetId ?? ''}`;
      const inner = JSON.parse(String(params.message)).method;
      return `${inner} → ${params.sessionId ?? `target ${params.targetId}`}`;
    });
  const attachOf = (n: number) => written.filter((w) => w.method === 'Target.attachToTarget')[n]!;
  const messageId = (inner: string) => {
    const found = written.find(
      (w) =>
        w.method === 'Target.sendMessageToTarget' &&
        JSON.parse(String(w.params.message)).method === inner,
    );
    return JSON.parse(String(found!.params.message)).id as number;
  };
  return { cdp, written, wire, attachOf, messageId };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('TargetRouting', () => {
  it("writes a session's first commands with its attach, by target id, before the browser answers", async () => {
    const browser = browserSession();
    const routing = new TargetRouting(browser.cdp);
    const { session, attached } = routing.attach('T1');
    void session.send('Page.enable');
    void session.send('Runtime.enable');
    expect(browser.wire()).toEqual([
      'Target.attachToTarget T1',
      'Page.enable → target T1',
      'Runtime.enable → target T1',
    ]);
    browser.attachOf(0).answer({ sessionId: 'S1' });
    await attached;
    expect(session.sessionId).toBe('S1');
    void session.send('Network.enable', {});
    expect(browser.wire().at(-1)).toBe('Network.enable → S1');
  });

  it('a reply that arrives before the attach answer reaches the session', async () => {
    const browser = browserSession();
    const routing = new TargetRouting(browser.cdp);
    const { session } = routing.attach('T1');
    const enabled = session.send('Page.enable');
    routing.receive(
      'S1',
      'T1',
      JSON.stringify({ id: browser.messageId('Page.enable'), result: {} }),
    );
    await expect(enabled).resolves.toEqual({});
    expect(session.sessionId).toBe('S1');
  });

  it('a second session on a target attaches after the first is answered and waits for its own id', async () => {
    const browser = browserSession();
    const routing = new TargetRouting(browser.cdp);
    routing.attach('T1');
    const second = routing.attach('T1');
    void second.session.send('Page.getFrameTree');
    await tick();
    // Chromium refuses a target-id address once two sessions are on a target: nothing goes yet.
    expect(browser.wire()).toEqual(['Target.attachToTarget T1']);
    browser.attachOf(0).answer({ sessionId: 'S1' });
    await tick();
    expect(browser.wire()).toEqual(['Target.attachToTarget T1', 'Target.attachToTarget T1']);
    browser.attachOf(1).answer({ sessionId: 'S2' });
    await second.attached;
    expect(browser.wire().at(-1)).toBe('Page.getFrameTree → S2');
  });

  it('a refused attach rejects, and so does every command of its session, with the same error', async () => {
    const browser = browserSession();
    const routing = new TargetRouting(browser.cdp);
    const { session, attached } = routing.attach('T1');
    const enabled = session.send('Page.enable');
    const refused = new Error('No target with given id found');
    browser.attachOf(0).fail(refused);
    await expect(attached).rejects.toBe(refused);
    await expect(enabled).rejects.toBe(refused);
    expect(session.closedReason).toBe(refused);
  });

  it('a detached target ends its session; its late messages reach no newer session', async () => {
    const browser = browserSession();
    const routing = new TargetRouting(browser.cdp);
    const first = routing.attach('T1');
    browser.attachOf(0).answer({ sessionId: 'S1' });
    await first.attached;
    const pending = first.session.send('Runtime.enable');
    routing.detached('S1', 'T1');
    await expect(pending).rejects.toBeInstanceOf(TargetSessionClosedError);

    const second = routing.attach('T1');
    const seen: unknown[] = [];
    second.session.on('Runtime.executionContextsCleared', () => seen.push('S1 event'));
    routing.receive('S1', 'T1', JSON.stringify({ method: 'Runtime.executionContextsCleared' }));
    expect(seen).toEqual([]);
    expect(second.session.sessionId).toBeUndefined();
  });

  it('a session detached before its attach is answered is detached in the browser when it is', async () => {
    const browser = browserSession();
    const routing = new TargetRouting(browser.cdp);
    const { session, attached } = routing.attach('T1');
    await session.detach();
    browser.attachOf(0).answer({ sessionId: 'S1' });
    await attached;
    expect(browser.wire()).toEqual(['Target.attachToTarget T1', 'Target.detachFromTarget ']);
    expect(browser.written.at(-1)!.params).toEqual({ sessionId: 'S1' });
  });

  it('closeAll() ends attached and unanswered sessions with one reason', async () => {
    const browser = browserSession();
    const routing = new TargetRouting(browser.cdp);
    const a = routing.attach('T1');
    browser.attachOf(0).answer({ sessionId: 'S1' });
    await a.attached;
    const b = routing.attach('T2');
    const reason = new TargetSessionClosedError('the browser session closed');
    routing.closeAll(reason);
    expect(a.session.closedReason).toBe(reason);
    expect(b.session.closedReason).toBe(reason);
  });

  it('adopts a flat session: its events by session id, detached like any other; tells our own attaches apart', async () => {
    const browser = browserSession();
    const routing = new TargetRouting(browser.cdp);
    const explicit = routing.attach('T1');
    // Chromium reports our own attach too, maybe before answering it: known once answered.
    const ownReport = routing.owns('S1', 'T1');
    const autoReport = routing.owns('F0', 'T1');
    browser.attachOf(0).answer({ sessionId: 'S1' });
    await explicit.attached;
    expect([await ownReport, await autoReport]).toEqual([true, false]);

    const flat = routing.adoptFlat('F1', 'T2', async (method) => ({ method }));
    const seen: unknown[] = [];
    flat.on('Page.loadEventFired', (e) => seen.push(e));
    routing.flatEvent('F1', 'Page.loadEventFired', { timestamp: 2 });
    routing.flatEvent('F9', 'Page.loadEventFired', { timestamp: 3 });
    routing.flatEvent('S1', 'Page.loadEventFired', { timestamp: 4 }); // non-flat: not by event
    expect(seen).toEqual([{ timestamp: 2 }]);
    expect(await flat.send('Page.enable')).toEqual({ method: 'Page.enable' });

    routing.detached('F1', 'T2');
    expect(flat.closedReason?.message).toContain('went away');
    expect(explicit.session.closedReason).toBeUndefined();
    await flat.detach(); // already ended: nothing more goes out
    expect(browser.wire().filter((w) => w.startsWith('Target.detachFromTarget'))).toEqual([]);
  });
});
