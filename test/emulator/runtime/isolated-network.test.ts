/**
 * The host takes a sandbox's DevTools socket out of the sandbox's reach before connecting: a
 * socket is moved, anything else the sandbox could plant there (a symlink to a socket of the
 * host) is refused and never followed.
 */
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimSocket, hostSocketDir } from '../../../src/emulator/runtime/isolated-network.js';

let dir: string;
const servers: Server[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'claim-'));
  await mkdir(hostSocketDir(join(dir, 't')), { recursive: true });
  await mkdir(join(dir, 't'));
});
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await rm(dir, { recursive: true, force: true });
});

async function listen(path: string, answer: string): Promise<void> {
  const server = createServer((socket) => socket.end(answer));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

function read(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    connect(path)
      .on('data', (d) => {
        text += d;
      })
      .on('end', () => resolve(text))
      .on('error', reject);
  });
}

describe('claimSocket', () => {
  it("moves the sandbox's socket into the host's dir, where it still reaches its listener", async () => {
    const from = join(dir, 't', 'devtools.sock');
    const to = join(hostSocketDir(join(dir, 't')), 'devtools.sock');
    await listen(from, 'sandbox');
    await claimSocket(from, to);
    expect(existsSync(from)).toBe(false);
    expect(lstatSync(to).isSocket()).toBe(true);
    expect(await read(to)).toBe('sandbox');
  });

  it('refuses a symlink planted in its place and never connects through it', async () => {
    const hostSecret = join(dir, 'host-only.sock');
    await listen(hostSecret, 'host secret');
    const from = join(dir, 't', 'devtools.sock');
    const to = join(hostSocketDir(join(dir, 't')), 'devtools.sock');
    await symlink(hostSecret, from);
    await expect(claimSocket(from, to)).rejects.toThrow(
      'the sandbox replaced its DevTools socket with something else: refused',
    );
    expect(existsSync(to)).toBe(false);
    // The host's own socket is untouched.
    expect(await read(hostSecret)).toBe('host secret');
  });

  it('says the socket is missing when the forwarder made none', async () => {
    await expect(
      claimSocket(join(dir, 't', 'devtools.sock'), join(dir, 'elsewhere.sock'), 50),
    ).rejects.toThrow("the sandbox's DevTools socket is missing (ENOENT)");
  });

  it('keeps the host dir beside the temp dir, never inside it', () => {
    expect(hostSocketDir('/w/tAbC123')).toBe('/w/tAbC123.host');
  });
});
