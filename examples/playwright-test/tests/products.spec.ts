import { expect, test } from 'remote-browser/test';
import { Shop } from './pages/shop.js';

test.describe('products', () => {
  test.beforeEach(async ({ page }) => {
    await new Shop(page).openProducts();
  });

  test('search narrows the list', async ({ page }) => {
    const shop = new Shop(page);
    await shop.search.fill('sock');
    await expect(shop.products.filter({ visible: true })).toHaveText([/Wool socks/]);
  });

  test('adding products updates the cart and its total', async ({ page }) => {
    const shop = new Shop(page);
    await shop.addToCart('Trail shoes');
    await shop.addToCart('Wool socks');
    await expect(shop.cartCount).toHaveText('2');
    await shop.openCart();
    await expect(page.getByRole('listitem')).toHaveText(['Trail shoes', 'Wool socks']);
    await expect(shop.total()).toHaveText('104');
  });

  test('every test starts with an empty cart', async ({ page }) => {
    await expect(new Shop(page).cartCount).toHaveText('0');
  });
});
