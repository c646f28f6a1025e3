/**
 * `remote-browser doctor --geo <session-id>` (issue 35 item 5): `checkGeo()` for a running session
 * from the command line. It connects to the session's `cdp_url`, reads `readPage()` in the
 * session's first page, and compares it with what the session's exit implies (geo-check.ts's
 * `compareGeo`, the same comparison as `checkGeo(page)` of both adapters).
 *
 * It reads the page as it is: the `geo: 'exit'` overrides live on the connection of the library
 * that applied them, so a session nobody is connected to with the library shows the browser's
 * own values. Loaded only when `--geo` is given.
 */

import type { CdpSession } from '../remote-cdp/cdp-channel.js';
import { CdpConnection } from '../remote-cdp/cdp-connection.js';
import {
  CHECK_REQUEST,
  compareGeo,
  type GeoCheck,
  type PageGeo,
  readPage,
  sentAcceptLanguage,
} from '../remote-cdp/geo-check.js';
import { resolveGeo } from '../remote-cdp/geo-resolve.js';
import { browserApi } from './clients.js';
import { CliError } from './errors.js';
import type { Runtime } from './kit.js';
import type { Output } from './output.js';

const CDP_TIMEOUT_MS = 30_000;
/** The query the check's own request carries, so it is told apart from the page's. */
/** How long to wait for the check request's headers. */
const HEADERS_TIMEOUT_MS = 5_000;

/** Runs the check and prints it; exit code 1 when a value disagrees with the exit. */
export async function doctorGeo(out: Output, rt: Runtime, sessionId: string): Promise<number> {
  const api = await browserApi(rt.io);
  let check: GeoCheck;
  try {
    const connection = await api.sessions.connection(sessionId);
    if (connection.status !== 'running' || !connection.cdp_url) {
      throw new CliError(`session ${sessionId} is ${connection.status}, not running`, {
        code: 'not_running',
        hint: 'doctor --geo reads a running session; see `remote-browser sessions list`',
      });
    }
    const exit = (await resolveGeo('exit', connection.config ?? {})) ?? { source: {} };
    const seen = await readSessionPage(connection.cdp_url);
    check = compareGeo(exit, seen.page, seen.acceptLanguage);
  } finally {
    await api.close();
  }
  out.result({ session_id: sessionId, ...check }, () => {
    const p = out.paint;
    out.line(`exit country: ${check.exitCountry ?? 'unknown'}`);
    const width = Math.max(...check.items.map((i) => i.name.length));
    for (const item of check.items) {
      const mark =
        item.status === 'ok' ? p.green('✓') : item.status === 'mismatch' ? p.red('✗') : p.dim('-');
      const detail =
        item.status === 'mismatch' ? `${item.actual}, the exit's is ${item.expected}` : item.actual;
      out.line(`${mark} ${item.name.padEnd(width)}  ${detail}`);
    }
    out.line(
      check.coherent ? p.green('coherent with the exit') : p.red('not coherent with the exit'),
    );
  });
  return check.coherent ? 0 : 1;
}

/** `readPage()` in the session's first page, and the Accept-Language a request of it carries. */
async function readSessionPage(
  cdpUrl: string,
): Promise<{ page: PageGeo; acceptLanguage: string | undefined }> {
  const cdp = await CdpConnection.open(cdpUrl, { timeoutMs: CDP_TIMEOUT_MS });
  try {
    const { targetInfos } = await cdp.send('Target.getTargets');
    const target = targetInfos.find((t) => t.type === 'page');
    if (!target) throw new CliError('the session has no page open to read');
    const { sessionId } = await cdp.send('Target.attachToTarget', {
      targetId: target.targetId,
      flatten: true,
    });
    const page = cdp.session(sessionId);
    const read = await evaluate<PageGeo>(page, `(${readPage.toString()})()`);
    const acceptLanguage = /^https?:/.test(target.url) ? await acceptLanguageOf(page) : undefined;
    return { page: read, acceptLanguage };
  } finally {
    cdp.close();
  }
}

async function evaluate<T>(page: CdpSession, expression: string): Promise<T> {
  const { result, exceptionDetails } = await page.send('Runtime.evaluate', {
    expression,
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) {
    throw new CliError(
      `reading the page failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`,
    );
  }
  return result.value as T;
}

/** The `Accept-Language` of one `HEAD` to the page's own origin, as sent (geo-check.ts). */
async function acceptLanguageOf(page: CdpSession): Promise<string | undefined> {
  await page.send('Network.enable');
  try {
    return await sentAcceptLanguage(
      (onSent, onExtra) => {
        const stops = [
          page.on('Network.requestWillBeSent', onSent),
          page.on('Network.requestWillBeSentExtraInfo', onExtra),
        ];
        return () => {
          for (const stop of stops) stop();
        };
      },
      () => evaluate(page, CHECK_REQUEST),
      HEADERS_TIMEOUT_MS,
    );
  } finally {
    await page.send('Network.disable').catch(() => {});
  }
}
