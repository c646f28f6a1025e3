/** The recording deferred and the download after teardown. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { deferred, downloadRecordings } from '../../src/launch/recordings.js';
import { rejection } from '../helpers/rejection.js';

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
      expect(await rejection(failed.promise)).toEqual(new Error('nobody listens'));
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
