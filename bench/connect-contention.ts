/**
 * What the remote features and geo add to a Playwright connect when nothing hides them (P1 at
 * 0 ms RTT): ONE session (no Chromium start in the figure), connected again and again, each
 * round three ways in turn: a raw `connectOverCDP` (`raw`), with the features' own connection
 * opened alongside and adopted (`features`, as launchRemote() does), and with geo's default-
 * context overrides on it too (`geo`, the session targeted at de/be/berlin). Each figure is the
 * time until the connect and the features' setup are both done.
 * Run: npx tsx bench/connect-contention.ts [rttMs=0] [rounds=25]
 */
import { chromium } from 'playwright-core';
import { BrowserApi } from '../src/browser-api/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { startDefaultContextGeo } from '../src/playwright/geo.js';
import { openRemoteFeatures } from '../src/remote-cdp/remote-features.js';
import { median } from './stats.js';

const rttMs = Number(process.argv[2] ?? 0);
const rounds = Number(process.argv[3] ?? 25);
const emu = await startEmulator({ ffmpegPath: false, network: { rttMs } });
const api = new BrowserApi({ baseUrl: emu.url, token: emu.token });
const session = await api.sessions.create({
  proxy_password: emu.proxyPassword,
  country: 'de',
  region: 'be',
  city: 'berlin',
});
const { config } = await api.sessions.connection(session.id);
const VARIANTS = ['raw', 'features', 'geo'] as const;
const times = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<
  (typeof VARIANTS)[number],
  number[]
>;
try {
  for (let round = 0; round <= rounds; round++) {
    for (const variant of VARIANTS) {
      const started = performance.now();
      const features = variant === 'raw' ? undefined : openRemoteFeatures(session.cdp_url, {});
      const geo =
        variant === 'geo' && features
          ? startDefaultContextGeo(features.cdp, {
              config: Promise.resolve(config),
              option: 'exit',
            })
          : undefined;
      const browser = await chromium.connectOverCDP(session.cdp_url);
      features?.adopt(browser);
      await Promise.all([features?.ready(), geo]);
      // The first round warms both sides up.
      if (round > 0) times[variant].push(performance.now() - started);
      // A connectOverCDP browser's close() disconnects; the session's Chromium stays.
      await browser.close();
      await features?.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  console.log(`connect + setup on one session, ${rttMs} ms RTT, median of ${rounds} rounds:`);
  for (const variant of VARIANTS) {
    console.log(`  ${variant.padEnd(9)} ${median(times[variant]).toFixed(1)} ms`);
  }
} finally {
  await api.sessions.end(session.id).catch(() => {});
  await api.close();
  await emu.close();
}
