/**
 * Serves recording files behind their signed URLs, with HTTP Range support (players and
 * resumable downloads ask for byte ranges). An expired or bad signature is a 403.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { HttpError, notFound } from '../server/http-error.js';
import type { RouteRegistrar } from '../server/router.js';
import type { BrowserServiceContext } from './context.js';

export type ByteRange = { start: number; end: number };

/**
 * One range out of a `Range` header: `undefined` to serve the whole file (no header, or one we
 * choose to ignore such as several ranges), `'unsatisfiable'` for a 416.
 */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return header.includes(',') ? undefined : 'unsatisfiable';
  const [, from, to] = match as unknown as [string, string, string];
  if (from === '' && to === '') return 'unsatisfiable';
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

export function registerRecordingFileRoutes(
  routes: RouteRegistrar,
  ctx: BrowserServiceContext,
): void {
  routes.add('GET', '/:id', async ({ req, res, params, query }) => {
    const id = params.id as string;
    const verdict = ctx.signer.verify(id, query.get('expires'), query.get('sig'), ctx.clock.now());
    if (verdict === 'expired') {
      throw new HttpError(
        403,
        'This video URL has expired: list the recordings again for a fresh one',
      );
    }
    if (verdict === 'invalid') throw new HttpError(403, 'Invalid video URL signature');
    const recording = ctx.store.recordings.get(id);
    const size = recording
      ? await stat(recording.file.path).then(
          (s) => s.size,
          () => -1,
        )
      : -1;
    if (!recording || size < 0) throw notFound('Recording');
    const range = parseRange(req.headers.range, size);
    const headers: Record<string, string | number> = {
      'content-type': recording.file.contentType,
      'accept-ranges': 'bytes',
      'cache-control': 'private, max-age=0',
    };
    if (range === 'unsatisfiable') {
      throw new HttpError(416, `The range is outside the file's ${size} bytes`, {
        headers: { 'accept-ranges': 'bytes', 'content-range': `bytes */${size}` },
      });
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    headers['content-length'] = size === 0 ? 0 : end - start + 1;
    if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD' || size === 0) {
      res.end();
      return undefined;
    }
    createReadStream(recording.file.path, { start, end })
      .on('error', () => res.destroy())
      .pipe(res);
    return undefined;
  });
}
