/**
 * The one loopback website of the tests: the (emulated) remote browser navigates here, since the
 * machine has no internet. Each suite gives its own page table; this serves it on 127.0.0.1 at a
 * free port and closes it with its keep-alive sockets.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** HTML (served as `text/html`), HTML with extra headers, or a handler that answers itself. */
export type Page =
  | string
  | { html: string; headers?: Record<string, string> }
  | ((req: IncomingMessage, res: ServerResponse) => void);

export interface LoopbackSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  url(path?: string): string;
  close(): Promise<void>;
}

/**
 * Serves `pages` by path (the query is ignored); any other path gets `fallback`, or a 404.
 * `contentType` is the type of HTML pages; default `text/html; charset=utf-8`.
 */
export async function startLoopbackSite(
  pages: Record<string, Page>,
  options: { fallback?: Page; contentType?: string } = {},
): Promise<LoopbackSite> {
  const contentType = options.contentType ?? 'text/html; charset=utf-8';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    const page = pages[path] ?? options.fallback;
    if (page === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } else if (typeof page === 'function') {
      page(req, res);
    } else {
      const { html, headers } = typeof page === 'string' ? { html: page, headers: {} } : page;
      res.writeHead(200, { 'content-type': contentType, ...headers }).end(html);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path = '/') => `${origin}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
