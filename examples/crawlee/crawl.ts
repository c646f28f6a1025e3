/**
 * Crawlee, unmodified, on remote browsers: the drop-in `chromium` is the crawler's launcher.
 * Crawlee passes its usual local launch options (args, proxy, a user-data dir); the drop-in maps
 * what has a remote meaning and names the rest once in a REMOTE_BROWSER_IGNORED_OPTION warning.
 * Every browser Crawlee opens is one remote session, deleted when Crawlee closes it.
 * Run: npx tsx examples/crawlee/crawl.ts
 */
import { Configuration, PlaywrightCrawler } from '@crawlee/playwright';
import { BrowserApi } from 'remote-browser';
import { chromium } from 'remote-browser/playwright';
import { setup } from '../_setup.js';

const { site, close } = await setup();
const products: { name: string; price: number }[] = [];
const titles: string[] = [];
try {
  const crawler = new PlaywrightCrawler(
    {
      launchContext: { launcher: chromium },
      maxConcurrency: 2,
      async requestHandler({ page, request }) {
        titles.push(`${request.url} → ${await page.title()}`);
        for (const li of await page.locator('.product').all()) {
          products.push({
            name: (await li.textContent()) ?? '',
            price: Number(await li.getAttribute('data-price')),
          });
        }
      },
    },
    // Keep Crawlee's request queue and datasets in memory: nothing is written to ./storage.
    new Configuration({ persistStorage: false }),
  );
  const stats = await crawler.run([`${site}/`, `${site}/products`, `${site}/account`]);
  console.log(titles.join('\n'));
  console.table(products);
  if (stats.requestsFinished !== 3 || stats.requestsFailed !== 0) {
    throw new Error(
      `expected 3 pages crawled, got ${stats.requestsFinished} (${stats.requestsFailed} failed)`,
    );
  }
  if (products.length !== 4) throw new Error('expected 4 products');

  // Every session the crawl created has been deleted.
  const api = new BrowserApi();
  const running = await api.sessions.list({ status: 'running' });
  await api.close();
  if (running.length) throw new Error(`${running.length} session(s) still running after the crawl`);
  console.log('crawl done, no session left running');
} finally {
  await close();
}
