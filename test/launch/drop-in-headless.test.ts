/**
 * The drop-ins' `headless` is the remote session's `headless` (issue 13: mapped, not dropped):
 * read from the create request a scripted service on a real loopback server receives. The
 * service hands out a cdp_url nothing listens on, so each launch then fails to connect and
 * deletes its session; only the create body matters here.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BrowserApi } from '../../src/browser-api/index.js';
import { resetIgnoredWarnings } from '../../src/launch/drop-in-options.js';
import { chromium } from '../../src/playwright/index.js';
import { puppeteer } from '../../src/puppeteer/index.js';
import { useFakeService } from './fake-service.js';

const service = useFakeService('rb-headless-');
beforeEach(() => {
  resetIgnoredWarnings();
});

type Remote = { api: BrowserApi; preflight: false };

/** The `headless` field of the one create request `launch` sends ('absent' when not sent). */
async function sentHeadless(launch: (remote: Remote) => Promise<unknown>): Promise<unknown> {
  const before = service.calls('POST', /^\/sessions$/).length;
  await launch({ api: service.api(), preflight: false }).catch(() => {});
  const creates = service.calls('POST', /^\/sessions$/).slice(before);
  expect(creates).toHaveLength(1);
  const body = JSON.parse(creates[0]!.body) as Record<string, unknown>;
  // The failed connect deleted the session it created.
  expect(service.running()).toEqual([]);
  return 'headless' in body ? body.headless : 'absent';
}

describe("the drop-ins' headless", () => {
  it('chromium.launch(): headless → the session’s headless; remote.remoteHeadless wins', async () => {
    expect(await sentHeadless((remote) => chromium.launch({ headless: false, remote }))).toBe(
      false,
    );
    expect(await sentHeadless((remote) => chromium.launch({ headless: true, remote }))).toBe(true);
    expect(await sentHeadless((remote) => chromium.launch({ remote }))).toBe('absent');
    expect(
      await sentHeadless((remote) =>
        chromium.launch({ headless: false, remote: { ...remote, remoteHeadless: true } }),
      ),
    ).toBe(true);
  });

  it('chromium.launchPersistentContext(): the same', async () => {
    expect(
      await sentHeadless((remote) =>
        chromium.launchPersistentContext('', { headless: false, remote }),
      ),
    ).toBe(false);
  });

  it("puppeteer.launch(): false → false; true, 'shell' and Crawlee's 'new' → true", async () => {
    expect(await sentHeadless((remote) => puppeteer.launch({ headless: false, remote }))).toBe(
      false,
    );
    expect(await sentHeadless((remote) => puppeteer.launch({ headless: true, remote }))).toBe(true);
    expect(await sentHeadless((remote) => puppeteer.launch({ headless: 'shell', remote }))).toBe(
      true,
    );
    expect(
      await sentHeadless((remote) => puppeteer.launch({ headless: 'new' as never, remote })),
    ).toBe(true);
    expect(
      await sentHeadless((remote) =>
        puppeteer.launch({ headless: true, remote: { ...remote, remoteHeadless: false } }),
      ),
    ).toBe(false);
  });
});
