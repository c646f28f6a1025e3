/** `remote-browser recordings list|download <session>`: published once the session has ended. */
import type { Command } from 'commander';
import type { DownloadedRecording } from '../../browser-api/index.js';
import { withBrowserApi } from '../clients.js';
import { CliError } from '../errors.js';
import { act, integer, type Runtime, withJson } from '../kit.js';
import { type Bar, bar, bytes, spinner } from '../progress.js';
import { forSession } from './sessions.js';

export function register(program: Command, rt: Runtime): void {
  const recordings = program
    .command('recordings')
    .description("a session's recordings (published after it ends; URLs live ~10 minutes)");

  withJson(
    recordings
      .command('list')
      .description('list the recordings of a session')
      .argument('<session>', 'session id'),
  ).action(
    act(rt, async (out, [session]) =>
      withBrowserApi(rt.io, async (api) => {
        const sid = session as string;
        const list = await forSession(sid, () => api.sessions.recordings.list(sid));
        out.result(list, () =>
          out.table(
            list.map((r) => ({
              id: r.id,
              primary: r.is_primary,
              duration: `${r.duration_seconds}s`,
              size: bytes(r.size_bytes),
              url_expires_at: r.video_url_expires_at,
            })),
            ['id', 'primary', 'duration', 'size', 'url_expires_at'],
          ),
        );
      }),
    ),
  );

  withJson(
    recordings
      .command('download')
      .description('download every recording of a session to a directory')
      .argument('<session>', 'session id')
      .option('--dir <dir>', 'directory to write to', '.')
      .option(
        '--wait <seconds>',
        'wait this long for the recordings to be published',
        integer('--wait', { min: 0 }),
        0,
      ),
  ).action(
    act(rt, async (out, [session], opts) =>
      withBrowserApi(rt.io, async (api) => {
        const sid = session as string;
        const { resolve } = await import('node:path');
        const dir = resolve(rt.io.cwd ?? process.cwd(), opts.dir as string);
        const wait = opts.wait as number;
        if (wait > 0) {
          const spin = spinner(out, `waiting for ${sid}'s recordings to be published…`);
          await forSession(sid, () =>
            api.sessions.recordings.waitForPublished(sid, { timeout: wait * 1000 }),
          ).finally(() => spin.stop());
        }
        // Recordings download one after another: one bar at a time, closed with a done line.
        let current: { id: string; bar: Bar; received: number } | undefined;
        const finish = (suffix = '') => {
          if (current) current.bar.stop(`${current.id}: ${bytes(current.received)}${suffix}`);
          current = undefined;
        };
        let files: DownloadedRecording[];
        try {
          files = await forSession(sid, () =>
            api.sessions.recordings.download(
              sid,
              { dir },
              {
                onProgress({ recordingId, receivedBytes, totalBytes }) {
                  if (current?.id !== recordingId) {
                    finish();
                    current = { id: recordingId, bar: bar(out, recordingId), received: 0 };
                  }
                  current.received = receivedBytes;
                  current.bar.update(receivedBytes, totalBytes);
                },
              },
            ),
          );
          finish();
        } catch (error) {
          finish(' (failed)');
          if (/no recordings are published yet/.test((error as Error).message)) {
            throw new CliError(`session ${sid} has no published recordings yet`, {
              code: 'not_published',
              hint: 'recordings appear after the session ends; add --wait 120 to wait for them',
            });
          }
          throw error;
        }
        out.result(
          files.map((f) => ({ recording_id: f.recordingId, path: f.path, bytes: f.bytes })),
          () => {
            for (const f of files) out.line(f.path);
          },
        );
      }),
    ),
  );
}
