/** A small loopback shop to crawl: `/` links to `/item/1..n`, each item page has a title and a price. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CrawlSite {
  origin: string;
  /** Every page of the site, start page first. */
  urls: string[];
  close(): Promise<void>;
}

export async function startCrawlSite(items = 6): Promise<CrawlSite> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const item = /^\/item\/(\d+)$/.exec(path);
    let html: string | undefined;
    if (path === '/') {
      const links = Array.from(
        { length: items },
        (_, i) => `<a href="/item/${i + 1}">Item ${i + 1}</a>`,
      );
      html = `<!doctype html><title>Shop</title>${links.join(' ')}`;
    } else if (item && Number(item[1]) >= 1 && Number(item[1]) <= items) {
      html = `<!doctype html><title>Item ${item[1]}</title><p class="price">${Number(item[1]) * 10}</p>`;
    }
    if (!html) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    urls: [`${origin}/`, ...Array.from({ length: items }, (_, i) => `${origin}/item/${i + 1}`)],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
