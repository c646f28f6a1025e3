import { expect, test } from 'remote-browser/test';
import { Shop } from './pages/shop.js';

// Fails on purpose, in its own project ("expected-failure"): it shows what a failure looks like
// in the report, with the remote session's recording attached under Videos.
test('checkout offers free shipping (it does not: this test fails)', async ({ page }) => {
  const shop = new Shop(page);
  await shop.openProducts();
  await shop.addToCart('Rain jacket');
  await shop.openCart();
  await expect(page.getByText('Free shipping')).toBeVisible({ timeout: 2_000 });
});
