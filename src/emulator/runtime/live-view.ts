/**
 * `live_view_url`: `<origin>/live/<sessionId>?token=<token>`, a page showing the session's
 * screencast as an MJPEG stream (`/live/<id>/stream?token=`), which any browser plays in an
 * <img> with no script. Like `video_url` it is a capability: the session's own unguessable
 * token (32 random bytes) rides in the URL, since an <img> or iframe cannot send a header.
 * Without it, with another session's, or once the session has ended, every path is a 404 (the
 * same answer as an unknown session: a guess learns nothing). `?token=` is a name `redact()`
 * removes, so logs, errors and reports never show it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseTarget } from '../server/own-origin.js';
import { sendError, sendReply } from '../server/router.js';
import { liveViewPage } from './live-view-page.js';
import type { RunningBrowser } from './types.js';

const BOUNDARY = 'remote-browser-frame';

export interface LiveViewOptions {
  /**
   * The running session's browser when `token` is that session's live view token, else
   * undefined (unknown or ended session, missing or wrong token).
   */
  resolve: (sessionId: string, token: string | undefined) => RunningBrowser | undefined;
}

export interface LiveView {
  handleHttp(req: IncomingMessage, res: ServerResponse): boolean;
  url(publicOrigin: string, sessionId: string, token: string): string;
}

export function createLiveView({ resolve }: LiveViewOptions): LiveView {
  const find = (sessionId: string, token: string | undefined): RunningBrowser | undefined => {
    const browser = resolve(sessionId, token);
    return browser && !browser.hasEnded() ? browser : undefined;
  };

  return {
    url: (publicOrigin, sessionId, token) =>
      `${publicOrigin.replace(/\/$/, '')}/live/${encodeURIComponent(sessionId)}?token=${encodeURIComponent(token)}`,

    handleHttp(req, res) {
      const url = parseTarget(req.url);
      const match = url && /^\/live\/([^/]+)(\/stream|\/status)?\/?$/.exec(url.pathname);
      if (!match) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return sendError(res, 405, 'method not allowed');
      const token = url.searchParams.get('token') ?? undefined;
      const browser = find(decodeURIComponent(match[1]!), token);
      if (!browser) return sendError(res, 404, 'session not found or no longer running');
      if (match[2] === '/stream') streamFrames(browser, res);
      else if (match[2] === '/status') sendReply(res, { body: { status: 'running' } });
      else {
        const html = liveViewPage(browser.sessionId, token as string);
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-length': Buffer.byteLength(html),
          'cache-control': 'no-store',
          // The URL holds the token: never hand it to another site as a Referer.
          'referrer-policy': 'no-referrer',
        });
        res.end(html);
      }
      return true;
    },
  };
}

/** MJPEG: one multipart part per frame, latest frame first; a slow viewer skips frames. */
function streamFrames(browser: RunningBrowser, res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': `multipart/x-mixed-replace; boundary=${BOUNDARY}`,
    'cache-control': 'no-store',
    connection: 'close',
  });
  const send = (jpeg: Buffer) => {
    if (res.writableNeedDrain || res.writableEnded) return;
    res.write(
      `--${BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`,
    );
    res.write(jpeg);
    if (!res.write('\r\n')) {
      res.once('drain', () => {
        const latest = browser.lastFrame();
        if (latest) send(latest);
      });
    }
  };
  const first = browser.lastFrame();
  if (first) send(first);
  const unsubscribe = browser.onFrame(send);
  const finish = () => {
    unsubscribe();
    if (!res.writableEnded) res.end(`--${BOUNDARY}--\r\n`);
  };
  // The response's close (not the request's, which fires once its empty body is read) is the
  // viewer going away.
  res.on('close', unsubscribe);
  void browser.ended.then(finish);
}
