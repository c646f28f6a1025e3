/**
 * An existing Playwright script, moved to remote browsers by changing one import:
 *   import { chromium } from 'playwright-core'  →  from 'remote-browser/playwright'
 * Run: npx tsx examples/playwright-script.ts
 */
import { chromium } from 'remote-browser/playwright';
import { setup } from './_setup.js';

const { site, close } = await setup();
const browser = await chromium.launch({ remote: { country: 'us' } });
try {
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${site}/products`);
  const names = await page.locator('.product').allTextContents();
  console.log(`${await page.title()}: ${names.join(', ')}`);
  if (names.length !== 4) throw new Error('expected 4 products');
} finally {
  await browser.close(); // also deletes the remote session
  await close();
}
