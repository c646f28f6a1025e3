import type { PuppeteerNode } from 'puppeteer-core';

/** puppeteer-core is an optional peer: loaded only here, never by the Playwright entry. */
export async function loadPuppeteer(what: string): Promise<PuppeteerNode> {
  try {
    const mod = (await import('puppeteer-core')) as unknown as {
      default?: PuppeteerNode;
    } & PuppeteerNode;
    return mod.default ?? mod;
  } catch (error) {
    throw new Error(
      `${what}: puppeteer-core is not installed. Run \`npm install puppeteer-core\`.`,
      { cause: error },
    );
  }
}
