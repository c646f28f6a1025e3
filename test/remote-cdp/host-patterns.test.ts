import { describe, expect, it } from 'vitest';
import { exposeNetworkProblem, parseExposeNetwork } from '../../src/remote-cdp/host-patterns.js';
import { urlPatternMatches } from '../../src/remote-cdp/url-pattern.js';

const exposes = (option: string, url: string) => parseExposeNetwork(option).matches(new URL(url));

describe('exposeNetwork patterns', () => {
  it('<loopback> exposes localhost, its subdomains, 127.0.0.1 and [::1] on every port', () => {
    for (const url of [
      'http://localhost:3000/',
      'http://app.localhost/',
      'http://127.0.0.1:5173/x',
      'http://[::1]:8080/',
      'https://localhost/',
    ]) {
      expect(exposes('<loopback>', url), url).toBe(true);
    }
    expect(exposes('<loopback>', 'http://127.0.0.2/')).toBe(false);
    expect(exposes('<loopback>', 'http://example.test/')).toBe(false);
  });

  it('limits a pattern with a port to that port, the default port included', () => {
    expect(exposes('localhost:3000', 'http://localhost:3000/')).toBe(true);
    expect(exposes('localhost:3000', 'http://localhost:3001/')).toBe(false);
    expect(exposes('dev.test:80', 'http://dev.test/')).toBe(true);
    expect(exposes('dev.test:443', 'https://dev.test/')).toBe(true);
  });

  it('matches wildcards against host names but never against IP addresses', () => {
    expect(exposes('*.dev.test', 'http://api.dev.test/')).toBe(true);
    expect(exposes('.dev.test', 'http://api.dev.test/')).toBe(true);
    expect(exposes('*.dev.test', 'http://dev.test.evil/')).toBe(false);
    expect(exposes('127.*', 'http://127.0.0.1/')).toBe(false);
    expect(exposes('*', 'http://10.0.0.1:9/')).toBe(true);
  });

  it('takes several comma-separated patterns, with spaces around them, in any case', () => {
    const option = ' LOCALHOST:3000 , *.Dev.Test ';
    expect(exposes(option, 'http://localhost:3000/')).toBe(true);
    expect(exposes(option, 'http://a.dev.test/')).toBe(true);
    expect(exposes(option, 'http://localhost:4000/')).toBe(false);
  });

  it('exposes nothing and pauses nothing for an empty option', () => {
    const hosts = parseExposeNetwork('');
    expect(hosts.empty).toBe(true);
    expect(hosts.fetchPatterns).toEqual([]);
    expect(hosts.matches(new URL('http://localhost/'))).toBe(false);
  });

  it('never serves non-HTTP URLs', () => {
    expect(exposes('*', 'ftp://localhost/')).toBe(false);
  });

  it('pauses in Chromium only the URLs of the patterns hosts', () => {
    const { fetchPatterns } = parseExposeNetwork('<loopback>,api.dev.test:8443');
    const paused = (url: string) =>
      fetchPatterns.some((p) => urlPatternMatches(p.urlPattern ?? '', url));
    expect(paused('http://localhost:3000/a.css')).toBe(true);
    expect(paused('http://localhost/')).toBe(true);
    expect(paused('http://[::1]:9/')).toBe(true);
    expect(paused('https://api.dev.test:8443/x')).toBe(true);
    expect(paused('https://api.dev.test/x')).toBe(false);
    expect(paused('https://example.test/')).toBe(false);
    expect(fetchPatterns.every((p) => p.requestStage === 'Request')).toBe(true);
  });

  it('names the entry and the rule for an invalid pattern', () => {
    expect(exposeNetworkProblem('localhost,,x.test')).toMatch(
      /^entry 2 is empty: write comma-separated hosts/,
    );
    expect(exposeNetworkProblem('http://localhost:3000')).toMatch(
      /^entry 1 "http:\/\/localhost:3000" is not a host pattern/,
    );
    expect(exposeNetworkProblem('localhost:70000')).toMatch(/port 70000, outside 1-65535/);
    expect(exposeNetworkProblem('localhost/app')).toMatch(/is not a host pattern/);
    expect(exposeNetworkProblem('<loopback>,*.dev.test:8080,[::1],10.0.0.1')).toBeUndefined();
  });
});
