import { describe, expect, it } from 'vitest';
import { urlPatternMatches } from '../../src/remote-cdp/url-pattern.js';

describe('urlPatternMatches', () => {
  it('matches any run of characters with a star, the empty run included', () => {
    expect(urlPatternMatches('http://localhost:*/*', 'http://localhost:3000/a/b?c=1')).toBe(true);
    expect(urlPatternMatches('http://localhost*', 'http://localhost')).toBe(true);
    expect(urlPatternMatches('http://localhost:*/*', 'http://example.test/')).toBe(false);
  });

  it('matches exactly one character with a question mark', () => {
    expect(urlPatternMatches('http://a?.test/', 'http://ab.test/')).toBe(true);
    expect(urlPatternMatches('http://a?.test/', 'http://a.test/')).toBe(false);
  });

  it('takes the character after a backslash literally', () => {
    expect(urlPatternMatches('http://x.test/\\*', 'http://x.test/*')).toBe(true);
    expect(urlPatternMatches('http://x.test/\\*', 'http://x.test/a')).toBe(false);
  });

  it('treats regex characters of the pattern as plain text', () => {
    expect(urlPatternMatches('http://[::1]:80/(a)+', 'http://[::1]:80/(a)+')).toBe(true);
    expect(urlPatternMatches('http://a.b/', 'http://aXb/')).toBe(false);
  });
});
