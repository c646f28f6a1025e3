/**
 * The small parts of a launch, each alone (issue 18's mutation pass): close()'s settleBoth, the
 * launch errors' messages and fields, the browser → session registry, the recording deferred
 * and download, and the option → wire mapping that preflight and create both read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { recordingOf, register, sessionOf } from '../../src/launch/browser-registry.js';
import { LaunchError, PreflightError, ProfileLimitError } from '../../src/launch/errors.js';
import type { OpenedSession } from '../../src/launch/open-session.js';
import { deferred, downloadRecordings } from '../../src/launch/recordings.js';
import { settleBoth } from '../../src/launch/settle-both.js';
import { toValidateParams, toWireSession } from '../../src/launch/to-wire.js';

const rejectedWith = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('resolved');
};

describe('settleBoth', () => {
  it('waits for both, and a failed finish wins over a failed disconnect', async () => {
    const order: string[] = [];
    const late = (name: string, fail: boolean) =>
      new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          order.push(name);
          if (fail) reject(new Error(name));
          else resolve();
        }),
      );
    await settleBoth(late('disconnect', false), late('finish', false));
    expect(order).toEqual(['disconnect', 'finish']);
    // The disconnect fails first, yet settleBoth still waits for finish() before throwing.
    order.length = 0;
    const both = await rejectedWith(settleBoth(late('disconnect', true), late('finish', true)));
    expect((both as Error).message).toBe('finish');
    expect(order).toEqual(['disconnect', 'finish']);
    order.length = 0;
    const disconnectOnly = await rejectedWith(
      settleBoth(late('disconnect', true), late('finish', false)),
    );
    expect((disconnectOnly as Error).message).toBe('disconnect');
    expect(order).toEqual(['disconnect', 'finish']);
    const finishOnly = await rejectedWith(
      settleBoth(Promise.resolve(), Promise.reject(new Error('finish'))),
    );
    expect((finishOnly as Error).message).toBe('finish');
  });
});

describe('launch errors', () => {
  it('LaunchError carries its session id and shows it only when there is one', () => {
    const cause = new Error('ws closed');
    const error = new LaunchError('launchRemote: could not connect', { cause, sessionId: 's-1' });
    expect(error.name).toBe('LaunchError');
    expect(error.sessionId).toBe('s-1');
    expect(error.cause).toBe(cause);
    expect(error.toJSON()).toEqual({
      name: 'LaunchError',
      message: 'launchRemote: could not connect',
      sessionId: 's-1',
    });
    const bare = new LaunchError('launchRemote: no');
    expect(bare.sessionId).toBeUndefined();
    expect(bare.toJSON()).toEqual({ name: 'LaunchError', message: 'launchRemote: no' });
  });

  it('PreflightError lists each issue with its field, suggestion and code', () => {
    const issues = [
      { code: 'unknown_country', field: 'country', message: 'no such', suggestion: 'us' },
      { code: 'bad', field: 'region', message: 'wrong', suggestion: undefined },
    ];
    const error = new PreflightError('launchRemote', issues);
    expect(error.name).toBe('PreflightError');
    expect(error.message).toBe(
      'launchRemote: preflight failed, no session was created: country: no such (suggestion: us) [unknown_country]; region: wrong [bad]',
    );
    expect(error.issues).toBe(issues);
    expect(error.toJSON()).toEqual({ name: 'PreflightError', message: error.message, issues });
  });

  it('ProfileLimitError keeps the existing names and the cause', () => {
    const cause = new Error('429');
    const error = new ProfileLimitError('ensureProfile: limit', ['a', 'b'], cause);
    expect(error.name).toBe('ProfileLimitError');
    expect(error.message).toBe('ensureProfile: limit');
    expect(error.existing).toEqual(['a', 'b']);
    expect(error.cause).toBe(cause);
  });
});

describe('browser registry', () => {
  const opened = (recording: Promise<never> | undefined) =>
    ({ info: { id: 's-9' }, recording }) as unknown as OpenedSession;

  it('sessionOf and recordingOf refuse a browser the library did not launch, by name', async () => {
    expect(() => sessionOf({})).toThrow(
      new TypeError('sessionOf: this browser was not launched by remote-browser'),
    );
    const error = await rejectedWith(recordingOf({}));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      'recordingOf: this browser was not launched by remote-browser',
    );
  });

  it('recordingOf without `recording` is a LaunchError that says how to get one', async () => {
    const browser = {};
    register(browser, opened(undefined));
    expect(sessionOf(browser)).toEqual({ id: 's-9' });
    const error = await rejectedWith(recordingOf(browser));
    expect(error).toBeInstanceOf(LaunchError);
    expect((error as Error).message).toBe(
      'recordingOf: launch with `recording: { dir }` to download the recording (and without keepSession)',
    );
  });

  it('recordingOf hands out the launch’s own recording promise', () => {
    const browser = {};
    const recording = deferred<never>();
    register(browser, opened(recording.promise));
    expect(recordingOf(browser)).toBe(recording.promise);
  });
});

describe('recordings', () => {
  it('deferred settles once from outside, and a rejection nobody awaits is not unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const failed = deferred<number>();
      failed.reject(new Error('nobody listens'));
      const done = deferred<number>();
      done.resolve(7);
      done.reject(new Error('too late'));
      expect(await done.promise).toBe(7);
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).toEqual([]);
      expect(await rejectedWith(failed.promise)).toEqual(new Error('nobody listens'));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('downloadRecordings waits for publication with the timeout and returns the file paths', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-rec-'));
    try {
      const calls: unknown[] = [];
      const api = {
        sessions: {
          recordings: {
            downloadWhenPublished: async (...args: unknown[]) => {
              calls.push(args);
              return [{ path: join(dir, 'a.mp4') }, { path: join(dir, 'b.mp4') }];
            },
          },
        },
      } as unknown as BrowserApi;
      expect(await downloadRecordings(api, 's-3', dir, 4321)).toEqual({
        sessionId: 's-3',
        files: [join(dir, 'a.mp4'), join(dir, 'b.mp4')],
      });
      expect(calls).toEqual([['s-3', { dir }, { timeout: 4321 }]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('options to the wire', () => {
  const every = {
    country: 'us',
    region: 'ca',
    city: 'la',
    zip: '90001',
    isp: 'comcast',
    protocol: 'socks5',
    connectionType: 'mobile',
    sessionType: 'rotating',
    filterMode: 'speed',
    ipv4Only: false,
    extraStealth: true,
    captchaSolver: false,
    cloudflareWebBotAuth: true,
    adBlocker: false,
    popupBlocker: true,
    remoteHeadless: false,
    maxDurationMinutes: 0,
    idleTimeoutMinutes: 5,
    profileId: 'p-1',
  } as const;

  it('copies every set session option to its wire name, false and 0 included', () => {
    expect(toWireSession({ ...every, profile: 'shop', token: 'secret' } as never)).toEqual({
      country: 'us',
      region: 'ca',
      city: 'la',
      zip: '90001',
      isp: 'comcast',
      protocol: 'socks5',
      connection_type: 'mobile',
      session_type: 'rotating',
      filter_mode: 'speed',
      ipv4_only: false,
      extra_stealth: true,
      captcha_solver: false,
      cloudflare_web_bot_auth: true,
      ad_blocker: false,
      popup_blocker: true,
      headless: false,
      max_duration_minutes: 0,
      idle_timeout_minutes: 5,
      profile_id: 'p-1',
    });
    // Strict: an unset option is absent from the wire body, not sent as undefined.
    expect(toWireSession({ country: undefined, zip: '1' })).toStrictEqual({ zip: '1' });
  });

  it('validate reads only its six string fields', () => {
    expect(toValidateParams(toWireSession(every))).toEqual({
      connection_type: 'mobile',
      session_type: 'rotating',
      protocol: 'socks5',
      country: 'us',
      region: 'ca',
      filter_mode: 'speed',
    });
    expect(toValidateParams({ country: 1 as never, region: 'ca' })).toEqual({ region: 'ca' });
  });
});
