import { describe, expect, it } from 'vitest';
import { Internet, siteIssue } from '../../../src/emulator/network/internet.js';

describe('the emulator internet', () => {
  it('looks a published host up by name, case and trailing dot aside, and knows no other', () => {
    const internet = new Internet();
    internet.publish('shop.test', 'https://127.0.0.1:4443');
    expect(internet.lookup('SHOP.test.')?.href).toBe('https://127.0.0.1:4443/');
    expect(internet.lookup('other.test')).toBeUndefined();
    expect(internet.list()).toEqual({ 'shop.test': 'https://127.0.0.1:4443' });
  });

  it('refuses a bad host or target, naming the host and the rule', () => {
    expect(siteIssue('Shop.test', 'http://127.0.0.1:1')?.field).toBe('host');
    expect(siteIssue('shop.test:80', 'http://127.0.0.1:1')?.message).toMatch(
      /without scheme or port/,
    );
    expect(siteIssue('exit.test', 'http://127.0.0.1:1')?.message).toMatch(/exit's own host/);
    expect(siteIssue('shop.test', 'ftp://127.0.0.1')).toMatchObject({ field: 'shop.test' });
    expect(siteIssue('shop.test', 'http://127.0.0.1:1/path')?.message).toMatch(/without path/);
    expect(siteIssue('shop.test', 'http://127.0.0.1:1')).toBeUndefined();
    expect(() => new Internet().publish('shop.test', 'nope')).toThrow(/cannot publish shop.test/);
  });
});
