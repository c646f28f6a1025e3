/**
 * Keep-alive connection reuse in the Transport vs a fresh connection per call, side by side in
 * one run against one loopback node:http server. Prints calls/s of each and the ratio. Not a test.
 * Run: npx tsx bench/transport.ts [calls=400]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { Transport } from '../src/http/transport.js';

const calls = Number(process.argv[2] ?? 400);
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"data":{"ok":true}}');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const base = {
  service: 'browser' as const,
  origin,
  apiPath: '/api/v2/browser',
  authorization: 'Bearer bench',
  unwrapData: true,
};

async function run(
  label: string,
  make: () => { t: Transport; done: () => Promise<void> },
  perCall: boolean,
) {
  const t0 = performance.now();
  let shared = perCall ? undefined : make();
  for (let i = 0; i < calls; i++) {
    const current = shared ?? make();
    await current.t.request({ method: 'GET', path: '/sessions', what: 'bench' });
    if (!shared) await current.done();
  }
  if (shared) await shared.done();
  shared = undefined;
  const ms = performance.now() - t0;
  console.log(`  ${label.padEnd(34)} ${(calls / (ms / 1000)).toFixed(0)} calls/s`);
  return ms;
}

const make = () => {
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  return { t: new Transport({ ...base, dispatcher }), done: () => dispatcher.close() };
};
console.log(`${calls} sequential GETs on loopback`);
// Two interleaved rounds of each, so warm-up and drift hit both sides alike.
let fresh = 0;
let reuse = 0;
for (let round = 0; round < 2; round++) {
  fresh += await run('fresh connection per call', make, true);
  reuse += await run('Transport keep-alive (reused)', make, false);
}
console.log(`  ratio keep-alive/fresh throughput ${(fresh / reuse).toFixed(2)}x`);
server.close();
