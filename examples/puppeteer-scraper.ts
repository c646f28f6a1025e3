/**
 * A Puppeteer scraper on a remote, proxied browser.
 * Run: npx tsx examples/puppeteer-scraper.ts
 */
import { launchRemote } from 'remote-browser/puppeteer';
import { setup } from './_setup.js';

const { site, close } = await setup();
const browser = await launchRemote({ country: 'us', sessionType: 'sticky' });
try {
  const [page] = await browser.pages();
  await page!.goto(`${site}/products`);
  const products = await page!.$$eval('.product', (items) =>
    items.map((li) => ({ name: li.textContent, price: Number((li as HTMLElement).dataset.price) })),
  );
  console.table(products);
  if (products.length !== 4) throw new Error('expected 4 products');
} finally {
  await browser.close(); // disconnects and deletes the remote session
  await close();
}
