/**
 * `live_view_url`: `<origin>/live/<sessionId>`, a page showing the session's screencast as an
 * MJPEG stream (`/live/<id>/stream`), which any browser plays in an <img> with no script. The URL
 * carries no token: session ids are random UUIDs, the emulator binds loopback, and an <img> or
 * iframe embed could not send a header anyway.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './devtools-json.js';
import { liveViewPage } from './live-view-page.js';
import type { RunningBrowser } from './types.js';

const BOUNDARY = 'remote-browser-frame';

export interface LiveViewOptions {
  /**
   * The running session's browser, or undefined for an unknown or ended session: by id alone,
   * since the live view has no token to give. A `{ browser }` answer (a SessionDirectory's)
   * is accepted too.
   */
  resolve: (sessionId: string) => RunningBrowser | { browser: RunningBrowser } | undefined;
}

export interface LiveView {
  handleHttp(req: IncomingMessage, res: ServerResponse): boolean;
  url(publicOrigin: string, sessionId: string): string;
}

export function createLiveView({ resolve }: LiveViewOptions): LiveView {
  const find = (sessionId: string): RunningBrowser | undefined => {
    const answer = resolve(sessionId);
    const browser = answer && 'browser' in answer ? answer.browser : answer;
    return browser && !browser.hasEnded() ? browser : undefined;
  };

  return {
    url: (publicOrigin, sessionId) =>
      `${publicOrigin.replace(/\/$/, '')}/live/${encodeURIComponent(sessionId)}`,

    handleHttp(req, res) {
      const match = /^\/live\/([^/]+)(\/stream|\/status)?\/?$/.exec(
        new URL(req.url ?? '/', 'http://x').pathname,
      );
      if (!match) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendJson(res, 405, { error: 'method not allowed' });
        return true;
      }
      const browser = find(decodeURIComponent(match[1]!));
      if (!browser) {
        sendJson(res, 404, { error: 'session not found or no longer running' });
        return true;
      }
      if (match[2] === '/stream') streamFrames(browser, res);
      else if (match[2] === '/status') sendJson(res, 200, { status: 'running' });
      else {
        const html = liveViewPage(browser.sessionId);
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-length': Buffer.byteLength(html),
          'cache-control': 'no-store',
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
  let waitingForDrain = false;
  const send = (jpeg: Buffer) => {
    if (waitingForDrain || res.writableEnded) return;
    res.write(
      `--${BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`,
    );
    res.write(jpeg);
    if (!res.write('\r\n')) {
      waitingForDrain = true;
      res.once('drain', () => {
        waitingForDrain = false;
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
