/**
 * `localhost` and `*.localhost` name this machine's loopback, never another machine: Chromium
 * never sends them to DNS (RFC 6761), so the tunnel and the WebSocket bridge do not either. A
 * name the `<loopback>` rule exposes is resolved here to `127.0.0.1` and `::1` (a dev server
 * listens on one of them; Node tries both), whatever the client's resolver would have said, so
 * a DNS answer for `pwn.localhost` pointing at another machine is never used.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { nodeDns } from '../http/node-builtins.js';

const LOOPBACK: LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** Whether `hostname` (as in a URL: lowercase, IPv6 in brackets) is `localhost` or under it. */
export function isLocalhostName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost');
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `dns.lookup`-compatible resolver for `net.connect` (undici's `connect.lookup`, `ws`'s
 * `lookup`): loopback for `localhost` names, the system resolver for every other name.
 */
export function loopbackFirstLookup(
  hostname: string,
  options: LookupOptions,
  callback: LookupCallback,
): void {
  if (!isLocalhostName(hostname)) {
    nodeDns().lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error || options.all) callback(error, addresses);
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family);
    });
    return;
  }
  const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
  const addresses = LOOPBACK.filter((a) => !family || a.family === family);
  const first = addresses[0] as LookupAddress;
  process.nextTick(() => {
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  });
}
