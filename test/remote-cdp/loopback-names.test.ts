import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { isLocalhostName, loopbackFirstLookup } from '../../src/remote-cdp/loopback-names.js';

const lookup = (host: string, options: { all?: boolean; family?: number } = {}) =>
  new Promise<string | LookupAddress[]>((resolve, reject) =>
    loopbackFirstLookup(host, options, (error, address) =>
      error ? reject(error) : resolve(address),
    ),
  );

describe('loopbackFirstLookup', () => {
  it('resolves localhost and *.localhost to loopback without asking DNS', async () => {
    expect(await lookup('localhost', { all: true })).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    // No resolver on this machine knows the name: only loopbackFirstLookup can answer it.
    expect(await lookup('pwn.localhost')).toBe('127.0.0.1');
    expect(await lookup('A.B.LOCALHOST.', { family: 6 })).toBe('::1');
  });

  it('leaves every other name to the system resolver', async () => {
    await expect(lookup('no-such-host.invalid')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(isLocalhostName('localhost.evil.test')).toBe(false);
    expect(isLocalhostName('evil-localhost')).toBe(false);
  });
});
