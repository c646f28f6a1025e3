import { expect, test } from 'remote-browser/test';
import { Shop } from './pages/shop.js';

test('signing in shows the account page', async ({ page }) => {
  const shop = new Shop(page);
  await shop.signIn('ada@example.com');
  await expect(page).toHaveURL('/account');
  await expect(page.getByRole('heading')).toHaveText('Hello, ada@example.com');
});

test('the account page asks a new visitor to sign in', async ({ page }) => {
  await page.goto('/account');
  await expect(page.getByRole('heading')).toHaveText('Please sign in');
});
