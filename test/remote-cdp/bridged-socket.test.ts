import { describe, expect, it } from 'vitest';
import { type BrowserCookie, cookiesForSocket } from '../../src/remote-cdp/bridged-socket.js';

const cookies: BrowserCookie[] = [
  { name: 'strict', value: '1', path: '/', sameSite: 'Strict' },
  { name: 'lax', value: '1', path: '/', sameSite: 'Lax' },
  { name: 'plain', value: '1', path: '/' },
  { name: 'none', value: '1', path: '/app', sameSite: 'None' },
];

describe('cookiesForSocket', () => {
  it('sends every cookie, longer paths first, on a same-site socket', () => {
    const url = new URL('http://localhost:5173/app/ws');
    expect(cookiesForSocket(cookies, url, 'http://localhost:3000', 'http://localhost:3000/')).toBe(
      'none=1; strict=1; lax=1; plain=1',
    );
    // Subdomains of one registrable domain are one site.
    expect(
      cookiesForSocket(
        cookies,
        new URL('https://api.dev.test/'),
        'https://www.dev.test',
        undefined,
      ),
    ).toBe('none=1; strict=1; lax=1; plain=1');
  });

  it('sends only SameSite=None cookies on a cross-site socket, or in a cross-site tab', () => {
    const url = new URL('http://localhost:5173/ws');
    expect(cookiesForSocket(cookies, url, 'http://127.0.0.1:5173', undefined)).toBe('none=1');
    expect(cookiesForSocket(cookies, url, 'http://localhost:5173', 'http://other.test/')).toBe(
      'none=1',
    );
    // Schemeful: https and http of one host are two sites.
    expect(cookiesForSocket(cookies, url, 'https://localhost:5173', undefined)).toBe('none=1');
    expect(cookiesForSocket(cookies.slice(0, 3), url, 'null', undefined)).toBeUndefined();
  });
});
