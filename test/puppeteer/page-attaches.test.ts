import type { Connection } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { watchAttaches } from '../../src/puppeteer/page-attaches.js';

type Listener = (event: unknown) => void;

/** An emitter with Puppeteer's on/off/emit, as far as watchAttaches uses them. */
class Emitter {
  readonly listeners = new Map<string, Set<Listener>>();
  on(event: string, listener: Listener): this {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener);
    this.listeners.set(event, set);
    return this;
  }
  off(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }
  emit(event: string, params: unknown): void {
    for (const listener of this.listeners.get(event) ?? []) listener(params);
  }
  count(): number {
    return [...this.listeners.values()].reduce((n, set) => n + set.size, 0);
  }
}

class FakeSession extends Emitter {
  constructor(readonly sessionId: string) {
    super();
  }
  id(): string {
    return this.sessionId;
  }
}

/** Puppeteer's Connection: a new session is announced, then its parent reports the attach. */
function fakeConnection() {
  const connection = new Emitter();
  const attach = (parent: Emitter, sessionId: string, targetId: string, type = 'page') => {
    const session = new FakeSession(sessionId);
    connection.emit('sessionattached', session);
    parent.emit('Target.attachedToTarget', {
      sessionId,
      targetInfo: { targetId, type, title: '', url: '', attached: true, canAccessOpener: false },
      waitingForDebugger: true,
    });
    return session;
  };
  return { connection, attach, asPuppeteer: connection as unknown as Connection };
}

const settled = async (promise: Promise<void>) => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
};

describe('watchAttaches', () => {
  it("resolves once Puppeteer attached a page under its tab (the tab session's report)", async () => {
    const { connection, attach, asPuppeteer } = fakeConnection();
    const attaches = watchAttaches(asPuppeteer);
    const tab = attach(connection, 'TAB-S', 'TAB', 'tab');
    const page = attaches.attached('P1');
    expect(await settled(page)).toBe(false);
    attach(tab, 'PAGE-S', 'P1');
    expect(await settled(page)).toBe(true);
  });

  it('resolves at once for a target attached already, at the browser level too', async () => {
    const { connection, attach, asPuppeteer } = fakeConnection();
    const attaches = watchAttaches(asPuppeteer);
    attach(connection, 'S1', 'P1');
    expect(await settled(attaches.attached('P1'))).toBe(true);
    expect(await settled(attaches.attached('P2'))).toBe(false);
  });

  it('forgets a target whose session detached', async () => {
    const { connection, attach, asPuppeteer } = fakeConnection();
    const attaches = watchAttaches(asPuppeteer);
    const session = attach(connection, 'S1', 'P1');
    connection.emit('sessiondetached', session);
    expect(await settled(attaches.attached('P1'))).toBe(false);
  });

  it('stop() removes every listener it added', () => {
    const { connection, attach, asPuppeteer } = fakeConnection();
    const attaches = watchAttaches(asPuppeteer);
    const tab = attach(connection, 'TAB-S', 'TAB', 'tab');
    expect(tab.count()).toBe(1);
    attaches.stop();
    expect(tab.count()).toBe(0);
    expect(connection.count()).toBe(0);
  });
});
