import { describe, expect, it } from 'vitest';
import { parseExposeNetwork } from '../../src/remote-cdp/host-patterns.js';
import { mayReachClient } from '../../src/remote-cdp/private-network.js';
import type { PausedRequest } from '../../src/remote-cdp/remote-cdp.js';

const hosts = parseExposeNetwork('localhost:3000');
const PAGE = 'PAGE-FRAME';
const isPageFrame = (frameId: string) => frameId === PAGE;

function paused(
  resourceType: PausedRequest['resourceType'],
  headers: Record<string, string>,
  frameId = PAGE,
): PausedRequest {
  return {
    requestId: 'r1',
    frameId,
    resourceType,
    request: {
      url: 'http://localhost:3000/x',
      method: 'GET',
      headers,
      initialPriority: 'High',
      referrerPolicy: 'strict-origin-when-cross-origin',
    },
  };
}

describe('mayReachClient', () => {
  it('lets a top-level navigation through whoever started it', () => {
    expect(mayReachClient(paused('Document', {}), isPageFrame, hosts)).toBe(true);
    expect(
      mayReachClient(paused('Document', { Referer: 'https://evil.test/' }), isPageFrame, hosts),
    ).toBe(true);
  });

  it('lets through a subresource of an exposed page', () => {
    const req = paused('Image', { Referer: 'http://localhost:3000/page' });
    expect(mayReachClient(req, isPageFrame, hosts)).toBe(true);
  });

  it('refuses a fetch, image or iframe started by a page that is not exposed', () => {
    expect(
      mayReachClient(
        paused('Fetch', { Origin: 'https://evil.test', Referer: 'https://evil.test/' }),
        isPageFrame,
        hosts,
      ),
    ).toBe(false);
    expect(
      mayReachClient(paused('Image', { referer: 'https://evil.test/' }), isPageFrame, hosts),
    ).toBe(false);
    expect(
      mayReachClient(
        paused('Document', { Referer: 'https://evil.test/' }, 'SUBFRAME'),
        isPageFrame,
        hosts,
      ),
    ).toBe(false);
  });

  it('refuses a request whose starter cannot be told (no Origin, no Referer, or an opaque one)', () => {
    expect(mayReachClient(paused('Image', {}), isPageFrame, hosts)).toBe(false);
    expect(mayReachClient(paused('Fetch', { Origin: 'null' }), isPageFrame, hosts)).toBe(false);
  });

  it('refuses when one of the two headers names a page that is not exposed', () => {
    const req = paused('Fetch', { Origin: 'https://evil.test', Referer: 'http://localhost:3000/' });
    expect(mayReachClient(req, isPageFrame, hosts)).toBe(false);
  });
});
