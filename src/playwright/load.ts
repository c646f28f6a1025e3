import type { BrowserType } from 'playwright-core';

/** playwright-core is an optional peer: load it only when no BrowserType was injected. */
export async function loadChromium(what: string): Promise<BrowserType> {
  try {
    const mod = await import('playwright-core');
    return (mod.chromium ??
      (mod as unknown as { default: { chromium: BrowserType } }).default.chromium) as BrowserType;
  } catch (error) {
    throw new Error(
      `${what}: playwright-core is not installed. Run \`npm install playwright-core\`, or pass \`browserType\` (e.g. the test runner's own chromium).`,
      {
        cause: error,
      },
    );
  }
}
