/**
 * Stay signed in across runs: a saved profile keeps cookies and storage between sessions.
 * Run: npx tsx examples/profile-reuse.ts
 */
import { chromium } from 'remote-browser/playwright';
import { setup } from './_setup.js';

const { site, close } = await setup();
try {
  // First run: sign in (the site sets a cookie). The profile is created on first use.
  const first = await chromium.launchPersistentContext('shop-account');
  await (first.pages()[0] ?? (await first.newPage())).goto(`${site}/login`);
  await first.close();

  // A later run: same profile, still signed in.
  const second = await chromium.launchPersistentContext('shop-account');
  const page = second.pages()[0] ?? (await second.newPage());
  await page.goto(`${site}/account`);
  const cookie = await page.locator('#c').textContent();
  console.log(`cookie in the second session: ${cookie}`);
  await second.close();
  if (!cookie?.includes('session=signed-in'))
    throw new Error('the profile did not keep the cookie');
} finally {
  await close();
}
