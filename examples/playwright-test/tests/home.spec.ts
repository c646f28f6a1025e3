import { expect, test } from 'remote-browser/test';
import { Shop } from './pages/shop.js';

test('the home page greets the visitor', async ({ page }) => {
  const shop = new Shop(page);
  await shop.openHome();
  await expect(page).toHaveTitle(/Trailhead/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome to Trailhead');
});

test('the navigation leads to the products', async ({ page }) => {
  const shop = new Shop(page);
  await shop.openHome();
  await page.getByRole('link', { name: 'Products' }).click();
  await expect(page).toHaveURL('/products');
  await expect(shop.products).toHaveCount(4);
});

test('each test carries its remote session in the report', async ({ remoteSession }) => {
  const annotations = test.info().annotations.map((a) => a.type);
  expect(annotations).toContain('remote-browser:session');
  expect(remoteSession.id).toBeTruthy();
});
