import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setDebugSink } from '../../src/http/debug.js';
import { type CdpSession, guardListener, sendAll } from '../../src/remote-cdp/cdp-channel.js';

let lines: string[];
let previous: ReturnType<typeof setDebugSink>;
let debugEnv: string | undefined;

beforeEach(() => {
  lines = [];
  previous = setDebugSink((line) => lines.push(line));
  debugEnv = process.env.DEBUG;
  process.env.DEBUG = 'remote-browser:*';
});
afterEach(() => {
  setDebugSink(previous);
  if (debugEnv === undefined) delete process.env.DEBUG;
  else process.env.DEBUG = debugEnv;
});

describe('guardListener (the dispatch guard)', () => {
  it('turns a handler that throws into a debug line, not an exception of the emitter', () => {
    const guarded = guardListener('Runtime.bindingCalled', (payload: string | null) => {
      return (payload as unknown as { id: number }).id;
    });
    expect(() => guarded(null)).not.toThrow();
    expect(lines.join('\n')).toMatch(/Runtime\.bindingCalled handler failed: .*null/);
  });

  it('turns a handler whose promise rejects into a debug line, never an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const guarded = guardListener('Fetch.requestPaused', async () => {
        throw new Error('the target went away');
      });
      guarded({});
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
      expect(lines.join('\n')).toMatch(/Fetch\.requestPaused handler failed: the target went away/);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('passes the params through and leaves a handler that succeeds alone', () => {
    const seen: unknown[] = [];
    guardListener('Target.targetCreated', (e: unknown) => seen.push(e))({ a: 1 });
    expect(seen).toEqual([{ a: 1 }]);
    expect(lines).toEqual([]);
  });
});

describe('sendAll', () => {
  it('sends every call before any answer arrives: one round trip for the batch', async () => {
    const sent: string[] = [];
    const answers: (() => void)[] = [];
    const session = {
      send: (method: string) => {
        sent.push(method);
        return new Promise<void>((resolve) => answers.push(resolve));
      },
      on: () => () => {},
    } as unknown as CdpSession;
    const done = sendAll(session, [
      { method: 'Target.setDiscoverTargets', params: { discover: true } },
      { method: 'Browser.setDownloadBehavior', params: { behavior: 'allowAndName' } },
      { method: 'Fetch.enable', params: { patterns: [] } },
    ]);
    expect(sent).toEqual([
      'Target.setDiscoverTargets',
      'Browser.setDownloadBehavior',
      'Fetch.enable',
    ]);
    let settled = false;
    void done.then(() => {
      settled = true;
    });
    for (const answer of answers.slice(0, 2)) answer();
    await Promise.resolve();
    expect(settled).toBe(false);
    answers[2]?.();
    await done;
  });
});
