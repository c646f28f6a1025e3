import { devices } from '@playwright/test';
import { defineRemoteConfig } from 'remote-browser/test';

const port = Number(process.env.SHOP_PORT ?? 5179);

export default defineRemoteConfig(
  {
    testDir: './tests',
    outputDir: './test-results',
    fullyParallel: true,
    workers: 2,
    retries: 0,
    reporter: [['list'], ['html', { outputFolder: './playwright-report', open: 'never' }]],
    use: {
      ...devices['Desktop Chrome'],
      baseURL: `http://localhost:${port}`,
      trace: 'retain-on-failure',
      screenshot: 'only-on-failure',
      remote: { country: 'us' },
    },
    // The dev server runs on this machine; the remote browser reaches it through exposeNetwork
    // (default `<loopback>`), so a webServer on localhost works as with a local browser.
    webServer: {
      command: 'node ./site/server.mjs',
      url: `http://localhost:${port}/`,
      env: { PORT: String(port) },
      reuseExistingServer: !process.env.CI,
    },
    projects: [
      // One remote session per worker; every test gets a fresh context on it.
      { name: 'remote', testIgnore: /\.fail\.spec\.ts$/ },
      // One remote session per test: its recording is exactly that test.
      {
        name: 'remote-per-test',
        testMatch: /products\.spec\.ts$/,
        use: { remote: { country: 'us', sessionScope: 'test' } },
      },
      // Fails on purpose: run it with `--project expected-failure` to see a failure's report.
      {
        name: 'expected-failure',
        testMatch: /\.fail\.spec\.ts$/,
        use: { remote: { country: 'us', sessionScope: 'test' } },
      },
    ],
  },
  // A remote emulator (its browsers cannot reach this machine), as the real service; a service
  // already named in REMOTE_BROWSER_URL (another emulator, the real one) is used instead.
  { emulator: process.env.REMOTE_BROWSER_URL ? false : { isolation: 'remote' } },
);
