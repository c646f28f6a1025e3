/** The browser → session registry behind sessionOf() and recordingOf(). */
import { describe, expect, it } from 'vitest';
import { recordingOf, register, sessionOf } from '../../src/launch/browser-registry.js';
import { LaunchError } from '../../src/launch/errors.js';
import type { OpenedSession } from '../../src/launch/open-session.js';
import { deferred } from '../../src/launch/recordings.js';
import { rejection } from '../helpers/rejection.js';

describe('browser registry', () => {
  const opened = (recording: Promise<never> | undefined) =>
    ({ info: { id: 's-9' }, recording }) as unknown as OpenedSession;

  it('sessionOf and recordingOf refuse a browser the library did not launch, by name', async () => {
    expect(() => sessionOf({})).toThrow(
      new TypeError('sessionOf: this browser was not launched by remote-browser'),
    );
    const error = await rejection(recordingOf({}));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      'recordingOf: this browser was not launched by remote-browser',
    );
  });

  it('recordingOf without `recording` is a LaunchError that says how to get one', async () => {
    const browser = {};
    register(browser, opened(undefined));
    expect(sessionOf(browser)).toEqual({ id: 's-9' });
    const error = await rejection(recordingOf(browser));
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
