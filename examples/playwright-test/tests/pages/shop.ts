import type { Locator, Page } from '@playwright/test';

/** The shop's pages as the tests see them: what a user does, not how the HTML is built. */
export class Shop {
  readonly cartCount: Locator;
  readonly search: Locator;
  readonly products: Locator;

  constructor(readonly page: Page) {
    this.cartCount = page.getByTestId('cart-count');
    this.search = page.getByRole('searchbox', { name: 'Search products' });
    this.products = page.getByRole('listitem');
  }

  async openHome(): Promise<void> {
    await this.page.goto('/');
  }

  async openProducts(): Promise<void> {
    await this.page.goto('/products');
  }

  async openCart(): Promise<void> {
    await this.page.getByRole('link', { name: /Cart/ }).click();
  }

  async addToCart(product: string): Promise<void> {
    await this.page.getByRole('button', { name: `Add ${product} to cart` }).click();
  }

  async signIn(email: string): Promise<void> {
    await this.page.goto('/login');
    await this.page.getByLabel('Email').fill(email);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
  }

  total(): Locator {
    return this.page.getByTestId('total');
  }
}
