import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CdpChannel } from '../../src/remote-cdp/cdp-channel.js';
import { CdpConnection } from '../../src/remote-cdp/cdp-connection.js';
import { holdNewPages, type PageHolder, RESUME_WAIT_MS } from '../../src/remote-cdp/page-hold.js';
import { RemoteCdp } from '../../src/remote-cdp/remote-cdp.js';
import type { TargetSession } from '../../src/remote-cdp/target-session.js';
import { FakeBrowser } from '../helpers/fake-cdp-browser.js';

let browser: FakeBrowser;
let connection: CdpConnection;
let cdp: RemoteCdp;

beforeEach(async () => {
  browser = new FakeBrowser();
  connection = await CdpConnection.open(await browser.listen());
  cdp = RemoteCdp.open(connection.channel());
});
afterEach(async () => {
  await cdp.close();
  connection.close();
  await browser.close();
});

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));
const page = (targetId: string, extra: object = {}) => ({
  targetId,
  type: 'page',
  title: '',
  url: `https://example.test/${targetId}`,
  attached: true,
  canAccessOpener: false,
  ...extra,
});
/** The commands the browser received on flat session `sessionId`, in order. */
const onSession = (sessionId: string) =>
  browser.received.filter((m) => m.sessionId === sessionId).map((m) => m.method);
const attached = (sessionId: string, targetId: string, waiting: boolean, from?: string) =>
  browser.emit(
    'Target.attachedToTarget',
    { sessionId, targetInfo: page(targetId), waitingForDebugger: waiting },
    from,
  );

describe('holdNewPages', () => {
  it('asks Chromium to hold every new page, flat, and replays that after a reopen', async () => {
    expect(holdNewPages(cdp, () => false)).toBeTypeOf('function');
    await cdp.ready();
    const autoAttach = browser.received.find((m) => m.method === 'Target.setAutoAttach');
    expect(autoAttach?.params).toEqual({
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
      filter: [{ type: 'page' }, { exclude: true }],
    });
    expect(autoAttach?.sessionId).toBeUndefined();

    expect(await replayedOnReopen()).toContain('Target.setAutoAttach');
  });

  it("writes the holder's first commands, then the resume, on the page's flat session, and routes its events there", async () => {
    const bindings: unknown[] = [];
    let held: TargetSession | undefined;
    holdNewPages(cdp, (target, session, waiting) => {
      expect([target.targetId, waiting]).toEqual(['P1', true]);
      held = session;
      void session.send('Page.enable');
      void session.send('Runtime.addBinding', { name: 'b' });
      session.on('Runtime.bindingCalled', (e) => bindings.push(e.payload));
      return true;
    });
    attached('S1', 'P1', true);
    await tick();
    expect(onSession('S1')).toEqual([
      'Page.enable',
      'Runtime.addBinding',
      'Runtime.runIfWaitingForDebugger',
    ]);

    browser.emit(
      'Runtime.bindingCalled',
      { name: 'b', payload: 'mine', executionContextId: 1 },
      'S1',
    );
    browser.emit(
      'Runtime.bindingCalled',
      { name: 'b', payload: 'other', executionContextId: 1 },
      'S9',
    );
    await tick();
    expect(bindings).toEqual(['mine']);
    expect(await held!.send('Runtime.evaluate', { expression: '1' })).toEqual({});

    browser.emit('Target.detachedFromTarget', { sessionId: 'S1', targetId: 'P1' });
    expect((await held!.closed).message).toContain('went away');
  });

  it('once stopped, turns the hold off, takes no new page, and a reopen does not hold again', async () => {
    const seen: string[] = [];
    const stop = holdNewPages(cdp, (target) => {
      seen.push(target.targetId);
      return true;
    });
    await cdp.ready();
    stop!();
    await tick();
    const autoAttach = browser.received.filter((m) => m.method === 'Target.setAutoAttach');
    expect(autoAttach.map((m) => m.params)).toEqual([
      expect.objectContaining({ autoAttach: true, waitForDebuggerOnStart: true }),
      { autoAttach: false, waitForDebuggerOnStart: false },
    ]);
    attached('S1', 'P1', true);
    await tick();
    expect(seen).toEqual([]);

    const replayed = await replayedOnReopen();
    expect(replayed).toContain('Target.setDiscoverTargets');
    expect(replayed).not.toContain('Target.setAutoAttach');
  });

  it('resumes and detaches a held page no holder keeps', async () => {
    holdNewPages(cdp, () => false);
    attached('S1', 'P1', true);
    await tick();
    expect(onSession('S1')).toEqual(['Runtime.runIfWaitingForDebugger']);
    const detaches = browser.received
      .filter((m) => m.method === 'Target.detachFromTarget')
      .map((m) => m.params.sessionId);
    expect(detaches).toEqual(['S1']);
  });

  it('offers a page there already (not held) and keeps the session even when declined', async () => {
    const seen: [string, boolean][] = [];
    holdNewPages(cdp, (target, _session, waiting) => {
      seen.push([target.targetId, waiting]);
      return false;
    });
    attached('A1', 'P1', false);
    browser.emit('Target.attachedToTarget', {
      sessionId: 'W2',
      targetInfo: { ...page('SW'), type: 'service_worker' },
      waitingForDebugger: true,
    }); // geo's hold on workers (geo-overrides.ts)
    await tick();
    expect(seen).toEqual([['P1', false]]);
    // Not held: nothing to resume, and it may be someone else's session on the connection.
    expect(onSession('A1')).toEqual([]);
    expect(onSession('W2')).toEqual([]);
    expect(browser.received.some((m) => m.method === 'Target.detachFromTarget')).toBe(false);
  });

  it('tells the report of an attach of our own (never waiting) from a page there already', async () => {
    const seen: string[] = [];
    holdNewPages(cdp, (target) => {
      seen.push(target.targetId);
      return true;
    });
    let answer: ((reply: object) => void) | undefined;
    const answerOthers = browser.answer;
    browser.answer = (m) => {
      if (m.method !== 'Target.attachToTarget') return answerOthers(m);
      answer = (reply) => browser.peer?.send(JSON.stringify({ id: m.id, ...reply }));
      return undefined; // answered below, after Chromium's reports of it
    };
    const own = cdp.attach('P0');
    await tick();
    attached('S0', 'P0', false); // the report of our attach
    attached('A0', 'P0', false); // the auto-attach of the page, there already
    await tick();
    expect(seen).toEqual([]); // nothing decided while our attach is unanswered
    answer!({ result: { sessionId: 'S0' } });
    await own.attached;
    await tick();
    expect(seen).toEqual(['P0']);
  });

  it("holds a popup reported on its opener's flat session (window.open keeps the opener)", async () => {
    const seen: string[] = [];
    holdNewPages(cdp, (target) => {
      seen.push(target.targetId);
      return true;
    });
    attached('S1', 'P1', true);
    await tick();
    attached('S2', 'P2', true, 'S1');
    await tick();
    expect(seen).toEqual(['P1', 'P2']);
    expect(onSession('S2')).toEqual(['Runtime.runIfWaitingForDebugger']);
  });

  it('still resumes a page whose holder threw, and nothing escapes the event handler', async () => {
    holdNewPages(cdp, () => {
      throw new Error('holder bug');
    });
    attached('S1', 'P1', true);
    await tick();
    expect(onSession('S1')).toEqual(['Runtime.runIfWaitingForDebugger']);
  });

  it("resumes a held page only once resumeAfter's wait settles, after the holder's commands", async () => {
    let done: (() => void) | undefined;
    const asked: string[] = [];
    holdNewPages(
      cdp,
      (_target, session) => {
        void session.send('Page.enable');
        return false;
      },
      (target) => {
        asked.push(target.targetId);
        return new Promise<void>((resolve) => {
          done = resolve;
        });
      },
    );
    attached('S1', 'P1', true);
    await tick();
    expect(asked).toEqual(['P1']);
    expect(onSession('S1')).toEqual(['Page.enable']);
    expect(browser.received.some((m) => m.method === 'Target.detachFromTarget')).toBe(false);
    done!();
    await tick();
    expect(onSession('S1')).toEqual(['Page.enable', 'Runtime.runIfWaitingForDebugger']);
    // Not kept: detached once resumed.
    expect(browser.received.filter((m) => m.method === 'Target.detachFromTarget')).toHaveLength(1);
  });

  it('resumes a held page whose wait fails, and one whose wait never settles after RESUME_WAIT_MS', async () => {
    holdNewPages(
      cdp,
      () => true,
      (target) =>
        target.targetId === 'P1' ? Promise.reject(new Error('gone')) : new Promise<void>(() => {}),
    );
    attached('S1', 'P1', true);
    attached('S2', 'P2', true);
    await tick();
    expect(onSession('S1')).toEqual(['Runtime.runIfWaitingForDebugger']);
    expect(onSession('S2')).toEqual([]);
    await tick(RESUME_WAIT_MS);
    expect(onSession('S2')).toEqual(['Runtime.runIfWaitingForDebugger']);
  });

  it('asks resumeAfter only for held pages: a page there already is not resumed', async () => {
    const asked: string[] = [];
    holdNewPages(
      cdp,
      () => true,
      (target) => {
        asked.push(target.targetId);
        return undefined;
      },
    );
    attached('A1', 'P1', false);
    attached('S2', 'P2', true);
    await tick();
    expect(asked).toEqual(['P2']);
    expect(onSession('A1')).toEqual([]);
    expect(onSession('S2')).toEqual(['Runtime.runIfWaitingForDebugger']);
  });

  it('holds nothing on a channel without flat sessions (a library’s own CDP session)', async () => {
    const base = connection.channel();
    const libraryLike: CdpChannel = {
      send: base.send,
      on: base.on,
      off: base.off,
      detach: base.detach,
    };
    const other = RemoteCdp.open(libraryLike);
    try {
      const holder: PageHolder = () => true;
      expect(holdNewPages(other, holder)).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

/** The methods `cdp` sends again when it moves onto a new connection to the same browser. */
async function replayedOnReopen(): Promise<string[]> {
  const again = await CdpConnection.open(`ws://127.0.0.1:${browserPort()}/devtools/browser/x`);
  try {
    const before = browser.received.length;
    await cdp.reopen(again.channel());
    return browser.received.slice(before).map((m) => m.method);
  } finally {
    again.close();
  }
}

function browserPort(): number {
  return (browser.http.address() as import('node:net').AddressInfo).port;
}
