/**
 * A site on the emulator's internet that reports what a detector compares with the exit: in the
 * page (at its first script), a cross-site iframe (an out-of-process frame), a dedicated worker
 * and a service worker, the time zone by `Intl` and by `Date` offsets (winter and summer), the
 * `Intl` locale, `navigator.language(s)`, and the `Accept-Language` each request carried (the
 * page's and the service worker's own fetches too).
 * Published as `geo.test` (pages) and `frame.test` (the iframe); https, so the service worker
 * registers.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Probe {
  timeZone: string;
  /** `getTimezoneOffset()` on 15 January and 15 July: DST shows as two values. */
  offsets: [number, number];
  locale: string;
  language: string;
  languages: string[];
  /** The `Accept-Language` of the request that loaded this document or script. */
  acceptLanguage: string | null;
}

export interface PageReport {
  /** The page at its first script. */
  page: Probe;
  /** A fetch from the page: the header the server saw. */
  fetched: string | null;
  worker: Probe;
  /** The service worker at its first script. */
  serviceWorker: Probe;
  /** A fetch from the service worker (when asked): the header the server saw. */
  serviceWorkerFetched: string | null;
}

/** The probe as script text: runs the same in a window, a worker and a service worker. */
const PROBE = `(acceptLanguage) => {
  const y = 2026;
  return {
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    offsets: [new Date(y, 0, 15).getTimezoneOffset(), new Date(y, 6, 15).getTimezoneOffset()],
    locale: Intl.DateTimeFormat().resolvedOptions().locale,
    language: navigator.language,
    languages: [...navigator.languages],
    acceptLanguage,
  };
}`;

const json = (value: unknown) => JSON.stringify(value ?? null);
const header = (req: IncomingMessage) => req.headers['accept-language'] ?? null;

function page(req: IncomingMessage): string {
  return `<!doctype html><html><head><title>geo</title><script>
const probe = ${PROBE};
window.firstScript = probe(${json(header(req))});
window.report = (async () => {
  const fetched = (await (await fetch('/headers')).json()).acceptLanguage;
  const worker = await new Promise((resolve) => {
    const w = new Worker('/worker.js');
    w.onmessage = (e) => resolve(e.data);
  });
  await navigator.serviceWorker.register('/sw.js');
  const registration = await navigator.serviceWorker.ready;
  const both = await new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (e) => resolve(e.data);
    registration.active.postMessage('probe', [channel.port2]);
  });
  return {
    page: window.firstScript, fetched, worker,
    serviceWorker: both.atStart, serviceWorkerFetched: both.fetched,
  };
})();
window.position = () => new Promise((resolve) =>
  navigator.geolocation.getCurrentPosition(
    (p) => resolve({ latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy }),
    (e) => resolve({ error: e.message }),
    { timeout: 2000 },
  ));
</script></head><body><iframe src="https://frame.test/frame"></iframe></body></html>`;
}

function frame(req: IncomingMessage): string {
  return `<!doctype html><script>const probe = ${PROBE};
window.firstScript = probe(${json(header(req))});
window.probeNow = () => probe(null);</script>`;
}

function worker(req: IncomingMessage): string {
  return `postMessage((${PROBE})(${json(header(req))}));`;
}

function serviceWorker(req: IncomingMessage): string {
  return `const atStart = (${PROBE})(${json(header(req))});
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('message', (e) => e.waitUntil((async () => {
  const fetched = (await (await fetch('/headers')).json()).acceptLanguage;
  e.ports[0].postMessage({ atStart, fetched });
})()));`;
}

export interface GeoSite {
  origin: string;
  close(): Promise<void>;
}

export async function startGeoSite(): Promise<GeoSite> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (type: string, body: string) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (path === '/' || path === '/popup') return send('text/html', page(req));
    if (path === '/frame') return send('text/html', frame(req));
    if (path === '/worker.js') return send('text/javascript', worker(req));
    if (path === '/sw.js') return send('text/javascript', serviceWorker(req));
    if (path === '/headers') return send('application/json', json({ acceptLanguage: header(req) }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Great-circle distance in km. */
export function distanceKm(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}
