import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openSession } from '../../src/launch/open-session.js';
import { TOKEN, useFakeService } from './fake-service.js';

const service = useFakeService('rb-pool-');
const child = new URL('../fixtures/pool-exit-child.ts', import.meta.url).pathname;

describe('launches without an `api` share one keep-alive connection pool', () => {
  it("a second launch reuses the first one's TCP connections, opening none", async () => {
    for (let i = 0; i < 2; i++) {
      const opened = await openSession(
        { baseUrl: service.origin, token: TOKEN, proxyPassword: 'p', preflight: false },
        'launchRemote',
      );
      await opened.lookedUp;
      await opened.finish();
    }
    const requests = service.server.requests;
    // create, connection lookup and DELETE, twice; all on the first launch's connection.
    expect(requests.map((r) => r.method)).toEqual([
      'POST',
      'GET',
      'DELETE',
      'POST',
      'GET',
      'DELETE',
    ]);
    // One TCP connection is one client port. The first launch opens what it needs (its lookup
    // may leave before the create's socket is back in the pool); the second opens none.
    const ports = (from: number) =>
      new Set(requests.slice(from, from + 3).map((r) => r.remotePort));
    expect([...ports(3)].filter((port) => !ports(0).has(port))).toEqual([]);
  });

  it('a script that launches and closes exits by itself: no idle pooled socket holds it', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child], {
      env: { ...process.env, CHILD_URL: service.origin, CHILD_TOKEN: TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    // A safety net only (not a timing assertion): a child held open is killed, and then fails.
    const killer = setTimeout(() => proc.kill('SIGKILL'), 45_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      proc.once('exit', (c, s) => resolve([c, s])),
    );
    clearTimeout(killer);
    expect({ code, signal, err }).toEqual({ code: 0, signal: null, err: '' });
    expect(out).toContain('done');
    const alive = JSON.parse(/alive: (.*)/.exec(out)?.[1] ?? '[]') as string[];
    expect(alive).not.toContain('TCPSocketWrap');
    // It did use the pool: the second launch opened no connection of its own.
    const ports = service.server.requests.map((r) => r.remotePort);
    expect(ports.slice(3).filter((port) => !ports.slice(0, 3).includes(port))).toEqual([]);
  }, 60_000);
});
