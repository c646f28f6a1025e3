import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { setDebugSink } from '../../src/http/debug.js';
import { connectWithin, openSession } from '../../src/launch/open-session.js';
import { json } from '../helpers/http-server.js';
import { eventually } from '../helpers/pages.js';
import { TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-info-');
const previousDebug = process.env.DEBUG;
const CONNECTION = /^\/sessions\/[^/]+\/connection$/;

afterAll(() => {
  if (previousDebug === undefined) delete process.env.DEBUG;
  else process.env.DEBUG = previousDebug;
});

describe('sessionOf(browser) when the connection lookup failed', () => {
  it('says so on the debug channel, and looks it up again when the live view is asked for', async () => {
    const lines: string[] = [];
    const restore = setDebugSink((line) => lines.push(line));
    process.env.DEBUG = 'remote-browser:launch';
    try {
      service.on('GET', CONNECTION, json(500, { error: { code: 'internal', message: 'down' } }));
      const opened = await openSession(
        { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
        'launchRemote',
      );
      await opened.lookedUp;
      const id = opened.info.id;
      expect(
        lines.some((l) => l.includes(`session ${id}: GET /sessions/${id}/connection failed`)),
      ).toBe(true);
      const lookups = service.calls('GET', CONNECTION).length;
      service.off('GET');
      // The first read starts a new lookup; the service recovered, so a later read has it.
      expect(opened.info.liveViewUrl).toBeUndefined();
      await eventually(() => opened.info.liveViewUrl !== undefined, 5000, 'the live view URL');
      expect(opened.info.liveViewUrl).toBe(`http://127.0.0.1:1/live/${id}`);
      expect(opened.info.debuggerAddress).toBe('127.0.0.1:1');
      expect(service.calls('GET', CONNECTION)).toHaveLength(lookups + 1);
      await opened.finish();
    } finally {
      setDebugSink(restore);
    }
  });

  it('refresh() resolves after the new lookup; a lookup that fails again is reported too', async () => {
    const lines: string[] = [];
    const restore = setDebugSink((line) => lines.push(line));
    process.env.DEBUG = 'remote-browser:launch';
    try {
      service.on('GET', CONNECTION, json(500, { error: { code: 'internal', message: 'down' } }));
      const opened = await openSession(
        { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
        'launchRemote',
      );
      await opened.info.refresh();
      expect(lines.some((l) => l.includes('failed again'))).toBe(true);
      service.off('GET');
      await opened.info.refresh();
      expect(opened.info.config).toEqual({});
      expect(opened.info.liveViewUrl).toMatch(/^http:\/\/127\.0\.0\.1:1\/live\//);
      await opened.finish();
    } finally {
      setDebugSink(restore);
    }
  });
});

describe('the connection lookup', () => {
  it('runs alongside the connect, and the launch returns only once the live view is known', async () => {
    const events: string[] = [];
    let connectStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      connectStarted = resolve;
    });
    service.on('GET', CONNECTION, async (req, res) => {
      // Answers once the connect has begun (or after 3 s, so a sequential launch still ends).
      await Promise.race([started, new Promise((resolve) => setTimeout(resolve, 3000))]);
      events.push('lookup answered');
      const id = req.url.split('/').at(-2);
      json(200, {
        data: {
          id,
          status: 'running',
          cdp_url: 'ws://127.0.0.1:1/x',
          live_view_url: `http://127.0.0.1:1/live/${id}`,
          debugger_address: '127.0.0.1:1',
          config: {},
        },
      })(req, res);
    });
    const opened = await openSession(
      { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
      'launchRemote',
    );
    const browser = await connectWithin(
      opened,
      'launchRemote',
      async () => {
        events.push('connect started');
        connectStarted();
        return { connected: true };
      },
      async () => {},
    );
    expect(browser).toEqual({ connected: true });
    // A sequential launch would connect only after the lookup answered.
    expect(events).toEqual(['connect started', 'lookup answered']);
    expect(opened.info.liveViewUrl).toBe(`http://127.0.0.1:1/live/${opened.info.id}`);
    expect(service.calls('GET', CONNECTION)).toHaveLength(1);
    await opened.finish();
  });
});

describe('sessionOf(browser) printed', () => {
  it('reads the live view URL whole and prints its token as [REDACTED] under util.inspect and JSON.stringify', async () => {
    const liveToken = 'live-capability-0123456789abcdef';
    service.on('GET', CONNECTION, (req, res) =>
      json(200, {
        data: {
          id: req.url?.split('/')[2],
          status: 'running',
          cdp_url: 'ws://127.0.0.1:1/x',
          live_view_url: `http://127.0.0.1:1/live/abc?token=${liveToken}`,
          debugger_address: '127.0.0.1:1',
          config: { country: 'us' },
        },
      })(req, res),
    );
    try {
      const opened = await openSession(
        { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
        'launchRemote',
      );
      await opened.lookedUp;
      expect(opened.info.liveViewUrl).toBe(`http://127.0.0.1:1/live/abc?token=${liveToken}`);
      for (const text of [inspect(opened.info), JSON.stringify(opened.info)]) {
        expect(text).not.toContain(liveToken);
        expect(text).toContain('/live/abc?token=[REDACTED]');
        expect(text).toContain('us');
      }
      await opened.finish();
    } finally {
      service.off('GET');
    }
  });
});
