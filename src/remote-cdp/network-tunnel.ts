/**
 * The `exposeNetwork` tunnel: a request of the remote browser to an exposed host is made from
 * the client with undici and answered to the browser with `Fetch.fulfillRequest`, as a local
 * browser would have seen it: method, headers (the browser's `Cookie` header included) and
 * body go out unchanged; status, headers (every `Set-Cookie`, which Chromium applies, HttpOnly
 * kept) and body come back; a redirect is handed to the browser, which follows it (through the
 * tunnel again when its target is exposed).
 *
 * Only the exposed hosts' URLs are paused (host-patterns.ts), at the request stage, on the
 * browser-level session, behind every page-level interception (remote-cdp.ts): the user's own
 * routing sees a request first. A request that a non-exposed page starts is refused
 * (private-network.ts).
 *
 * What the protocol cannot carry: `Fetch.fulfillRequest` takes the whole body in one message,
 * so a response is read to its end first (up to MAX_RESPONSE_BYTES), and a response that never
 * ends (Server-Sent Events) cannot be served; both are answered with a 502 whose body says why,
 * and a warning.
 */
import type { Protocol } from 'devtools-protocol';
import type { Dispatcher } from 'undici';
import { createDebug } from '../http/debug.js';
import { nodeEvents } from '../http/node-builtins.js';
import { loadUndici } from '../http/undici.js';
import type { HeaderEntry, PausedRequest } from './fetch-interception.js';
import type { ExposedHosts } from './host-patterns.js';
import { loopbackFirstLookup } from './loopback-names.js';
import { mayReachClient } from './private-network.js';
import type { RemoteCdp } from './remote-cdp.js';

const debug = createDebug('expose-network');

/** The largest response body the tunnel carries (one CDP message holds it, base64). */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Headers of one connection, not of the request: never forwarded either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
]);

/** A Node network error → the net error a local browser would have shown. */
const NET_ERRORS: Record<string, Protocol.Network.ErrorReason> = {
  ECONNREFUSED: 'ConnectionRefused',
  ECONNRESET: 'ConnectionReset',
  ENOTFOUND: 'NameNotResolved',
  EAI_AGAIN: 'NameNotResolved',
  ETIMEDOUT: 'TimedOut',
  UND_ERR_CONNECT_TIMEOUT: 'TimedOut',
  EHOSTUNREACH: 'AddressUnreachable',
  ENETUNREACH: 'AddressUnreachable',
};

const warned = new Set<string>();

/**
 * Starts serving the exposed `hosts` (not empty) from this machine. Its `Fetch.enable` joins the setup
 * batch (`cdp.ready()`); the returned function stops it.
 */
export async function startNetworkTunnel(
  cdp: RemoteCdp,
  hosts: ExposedHosts,
): Promise<() => Promise<void>> {
  const { Agent } = await loadUndici();
  // `localhost` names are this machine's loopback, never another machine's (loopback-names.ts).
  const agent = new Agent({ keepAliveTimeout: 10_000, connect: { lookup: loopbackFirstLookup } });
  const inFlight = new AbortController();
  // Every request in flight listens on this one signal: a dev server's first load has dozens
  // (Vite's modules), past Node's default of 10, which would print a leak warning in the user's
  // process. Each request removes its listener when it ends.
  nodeEvents().setMaxListeners(Number.POSITIVE_INFINITY, inFlight.signal);
  const removeInterceptor = cdp.intercept({
    role: 'network-tunnel',
    patterns: hosts.fetchPatterns,
    onPaused: (event) => serve(cdp, hosts, agent, inFlight.signal, event),
  });
  return async () => {
    inFlight.abort();
    await removeInterceptor().catch(() => {});
    await agent.close().catch(() => {});
  };
}

async function serve(
  cdp: RemoteCdp,
  hosts: ExposedHosts,
  agent: Dispatcher,
  signal: AbortSignal,
  event: PausedRequest,
): Promise<boolean> {
  const url = new URL(event.request.url);
  if (!hosts.matches(url)) return false;
  const requestId = event.requestId;
  if (!mayReachClient(event, (id) => cdp.isPageFrame(id), hosts)) {
    debug(`refused ${event.resourceType} ${url.origin}: started by a page that is not exposed`);
    await cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
    return true;
  }
  const body = requestBody(event);
  if (body === 'missing') {
    await explain(cdp, requestId, 'the browser did not hand over this request body');
    return true;
  }
  let response: Dispatcher.ResponseData;
  try {
    response = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: event.request.method as Dispatcher.HttpMethod,
      headers: forwardable(Object.entries(event.request.headers)),
      body,
      signal,
    });
  } catch (error) {
    const code = errorCode(error);
    debug(`${event.request.method} ${url.origin}${url.pathname} failed on the client: ${code}`);
    await cdp.send('Fetch.failRequest', {
      requestId,
      errorReason: NET_ERRORS[code] ?? 'Failed',
    });
    return true;
  }
  const headers = responseHeaders(response.headers);
  const type = String(response.headers['content-type'] ?? '');
  if (type.startsWith('text/event-stream')) {
    response.body.destroy();
    await explain(cdp, requestId, 'Server-Sent Events (text/event-stream) never end');
    return true;
  }
  // A download is kept on the client by the download bridge (downloads.ts), streamed: the
  // features after the tunnel in INTERCEPT_ORDER see the response before its body is read.
  const served = {
    status: response.statusCode,
    headers,
    body: response.body,
    cancel: () => response.body.destroy(),
  };
  if (await cdp.offerServed('network-tunnel', event, served)) return true;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_RESPONSE_BYTES) {
        response.body.destroy();
        await explain(cdp, requestId, `the response is larger than ${MAX_RESPONSE_BYTES} bytes`);
        return true;
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    // The server dropped the connection mid-body: the browser sees a failed load, as locally.
    debug(`${url.origin}${url.pathname}: the response body broke off: ${errorCode(error)}`);
    await cdp.send('Fetch.failRequest', { requestId, errorReason: 'ConnectionReset' });
    return true;
  }
  await cdp.send('Fetch.fulfillRequest', {
    requestId,
    responseCode: response.statusCode,
    responseHeaders: headers,
    body: Buffer.concat(chunks).toString('base64'),
  });
  return true;
}

/** The body to send: undefined for none, 'missing' when Chromium did not include it. */
function requestBody(event: PausedRequest): Buffer | undefined | 'missing' {
  const { postData, postDataEntries, hasPostData } = event.request;
  if (postDataEntries && postDataEntries.length > 0) {
    return Buffer.concat(postDataEntries.map((e) => Buffer.from(e.bytes ?? '', 'base64')));
  }
  if (postData !== undefined) return Buffer.from(postData);
  return hasPostData ? 'missing' : undefined;
}

function forwardable(entries: [string, string][]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!HOP_BY_HOP.has(name.toLowerCase())) headers[name] = value;
  }
  return headers;
}

function responseHeaders(headers: Record<string, string | string[] | undefined>): HeaderEntry[] {
  const list: HeaderEntry[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) list.push({ name, value: one });
  }
  return list;
}

function errorCode(error: unknown): string {
  const e = error as { code?: string; cause?: { code?: string } };
  return e.cause?.code ?? e.code ?? 'unknown';
}

/** Answers what the tunnel cannot carry with a 502 that says why, and warns once per reason. */
async function explain(cdp: RemoteCdp, requestId: string, reason: string): Promise<void> {
  const message = `remote-browser exposeNetwork cannot carry this response: ${reason}. See https://github.com/remote-browser/remote-browser/blob/main/docs/remote.md`;
  if (!warned.has(reason)) {
    warned.add(reason);
    process.emitWarning(message, {
      type: 'RemoteBrowserWarning',
      code: 'REMOTE_BROWSER_EXPOSE_NETWORK',
    });
  }
  await cdp.send('Fetch.fulfillRequest', {
    requestId,
    responseCode: 502,
    responseHeaders: [{ name: 'content-type', value: 'text/plain; charset=utf-8' }],
    body: Buffer.from(message).toString('base64'),
  });
}
