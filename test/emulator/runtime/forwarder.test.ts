/**
 * The sandbox's forwarder, in-process: what it pipes where, how it says why it stops, and that it
 * lives exactly as long as the command it starts (in the sandbox, Chromium). Real sockets and a
 * real child process; the sandbox itself is sandbox.e2e.test.ts's.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import {
  FORWARDER_MARK,
  forwarderOptionsFromEnv,
  readCommand,
  runForwarder,
  startForwarder,
} from '../../../src/emulator/runtime/forwarder.js';
import { FORWARDER_MARK as HOST_MARK } from '../../../src/emulator/runtime/sandbox.js';

let dir: string;
const servers: Server[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fwd-'));
});
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await rm(dir, { recursive: true, force: true });
});

/** An echo server that prefixes what it sends back with `name`. */
async function echo(name: string, where: string | 0): Promise<Server> {
  const server = createServer((socket) => socket.on('data', (d) => socket.write(`${name}:${d}`)));
  servers.push(server);
  await new Promise<void>((resolve) =>
    typeof where === 'string'
      ? server.listen(where, resolve)
      : server.listen(0, '127.0.0.1', resolve),
  );
  return server;
}

async function freePort(): Promise<number> {
  const server = await echo('unused', 0);
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function roundTrip(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.once('data', (data) => resolve(String(data)));
    socket.once('error', reject);
    socket.write(text);
  });
}

describe('startForwarder', () => {
  it('pipes its loopback port to the exit socket and its DevTools socket to the DevTools port', async () => {
    const exitSocket = join(dir, 'exit.sock');
    await echo('exit', exitSocket);
    const devtools = await echo('devtools', 0);
    const proxyPort = await freePort();
    const forwarder = await startForwarder({
      exitSocket,
      proxyPort,
      devtoolsSocket: join(dir, 'devtools.sock'),
      devtoolsPort: (devtools.address() as AddressInfo).port,
    });
    try {
      const out = connect(proxyPort, '127.0.0.1');
      expect(await roundTrip(out, 'GET')).toBe('exit:GET');
      const inward = connect(join(dir, 'devtools.sock'));
      expect(await roundTrip(inward, 'cdp')).toBe('devtools:cdp');
      out.destroy();
      inward.destroy();
    } finally {
      await forwarder.close();
    }
  });

  it('ends the client connection when the far side is not there', async () => {
    const proxyPort = await freePort();
    const forwarder = await startForwarder({
      exitSocket: join(dir, 'nobody-listens.sock'),
      proxyPort,
      devtoolsSocket: join(dir, 'devtools.sock'),
      devtoolsPort: await freePort(),
    });
    try {
      const out = connect(proxyPort, '127.0.0.1');
      await new Promise<void>((resolve) => out.on('close', () => resolve()));
      expect(out.bytesRead).toBe(0);
    } finally {
      await forwarder.close();
    }
  });

  it('refuses to start, naming the listener, when its port is taken', async () => {
    const taken = await echo('taken', 0);
    await expect(
      startForwarder({
        exitSocket: join(dir, 'exit.sock'),
        proxyPort: (taken.address() as AddressInfo).port,
        devtoolsSocket: join(dir, 'devtools.sock'),
        devtoolsPort: 9,
      }),
    ).rejects.toThrow(/the exit's port 127\.0\.0\.1:\d+: .*EADDRINUSE/);
  });
});

describe('runForwarder', () => {
  /** What it says on stderr (kept off the test output). */
  let stderr: MockInstance<typeof process.stderr.write>;
  beforeEach(() => {
    stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    stderr.mockRestore();
  });

  const options = async () => ({
    exitSocket: join(dir, 'exit.sock'),
    proxyPort: await freePort(),
    devtoolsSocket: join(dir, 'devtools.sock'),
    devtoolsPort: await freePort(),
  });

  it('runs the command after listening and exits with its status, saying so', async () => {
    const { devtoolsSocket, ...rest } = await options();
    const code = await new Promise<number>((resolve) => {
      // The command reaches the forwarder's DevTools socket once it listens, beside it.
      void runForwarder(
        { devtoolsSocket, ...rest },
        Promise.resolve([
          process.execPath,
          '-e',
          `const net = require('net'); const tryIt = (n) => net.connect(${JSON.stringify(devtoolsSocket)}).on('connect', () => process.exit(3)).on('error', () => n > 0 ? setTimeout(() => tryIt(n - 1), 20) : process.exit(4)); tryIt(100)`,
        ]),
        resolve,
      );
    });
    expect(code).toBe(3);
    expect(stderr.mock.calls.map(([line]) => String(line))).toContain(
      `${FORWARDER_MARK} Chromium exited (code 3)\n`,
    );
  });

  it('exits 1 with its reason and never starts the command when it cannot listen', async () => {
    const taken = await echo('taken', 0);
    const marker = join(dir, 'started');
    const settings = { ...(await options()), proxyPort: (taken.address() as AddressInfo).port };
    const code = await new Promise<number>((resolve) => {
      void runForwarder(
        settings,
        // Would write the marker at once: it is never started.
        Promise.resolve([
          process.execPath,
          '-e',
          `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`,
        ]),
        resolve,
      );
    });
    expect(code).toBe(1);
    const said = stderr.mock.calls.map(([line]) => String(line)).join('');
    expect(said).toMatch(new RegExp(`^${FORWARDER_MARK} could not listen on the exit's port`));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(marker)).toBe(false);
  });

  it('listens before its command comes, and starts nothing until it does (a spare sandbox)', async () => {
    const settings = await options();
    const marker = join(dir, 'started');
    let give!: (command: string[]) => void;
    const command = new Promise<string[]>((resolve) => {
      give = resolve;
    });
    const exited = new Promise<number>((resolve) => {
      void runForwarder(settings, command, resolve);
    });
    // Its DevTools socket takes connections while no command has come.
    const connected = await new Promise<boolean>((resolve) => {
      const tryIt = (n: number) =>
        connect(settings.devtoolsSocket)
          .on('connect', function (this: Socket) {
            this.destroy();
            resolve(true);
          })
          .on('error', () => (n > 0 ? setTimeout(() => tryIt(n - 1), 10) : resolve(false)));
      tryIt(100);
    });
    expect(connected).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(marker)).toBe(false);
    give([process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`]);
    expect(await exited).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('exits 1 with its reason when no command comes, and leaves no listener', async () => {
    const settings = await options();
    const code = await new Promise<number>((resolve) => {
      void runForwarder(settings, readCommand(Readable.from([])), resolve);
    });
    expect(code).toBe(1);
    expect(stderr.mock.calls.map(([line]) => String(line))).toContain(
      `${FORWARDER_MARK} no command to run: no command came on stdin\n`,
    );
    // Its port is free again.
    const again = await startForwarder(settings);
    await again.close();
  });
});

describe('forwarderOptionsFromEnv and readCommand', () => {
  it('reads its four settings and names a missing one', () => {
    const env = {
      RB_EXIT_SOCKET: '/tmp/exit.sock',
      RB_PROXY_PORT: '8118',
      RB_DEVTOOLS_SOCKET: '/tmp/devtools.sock',
      RB_DEVTOOLS_PORT: '9222',
    };
    expect(forwarderOptionsFromEnv(env)).toEqual({
      exitSocket: '/tmp/exit.sock',
      proxyPort: 8118,
      devtoolsSocket: '/tmp/devtools.sock',
      devtoolsPort: 9222,
    });
    expect(() => forwarderOptionsFromEnv({ ...env, RB_PROXY_PORT: '' })).toThrow(
      'RB_PROXY_PORT is not set',
    );
  });

  it("reads Chromium's command line from stdin as a JSON array and refuses anything else", async () => {
    const read = (...chunks: string[]) => readCommand(Readable.from(chunks));
    // In as many chunks as the pipe makes of it.
    expect(await read('["/usr/bin/chromium",', '"--headless"]')).toEqual([
      '/usr/bin/chromium',
      '--headless',
    ]);
    await expect(read('{"a":1}')).rejects.toThrow(
      'the command on stdin is not a JSON array of strings',
    );
    await expect(read('[]')).rejects.toThrow('not a JSON array of strings');
    await expect(read('["a", 1]')).rejects.toThrow('not a JSON array of strings');
    await expect(read('["a"')).rejects.toThrow('the command on stdin is not JSON');
    await expect(read()).rejects.toThrow('no command came on stdin');
  });

  it('marks its lines as the host reads them', () => {
    expect(FORWARDER_MARK).toBe(HOST_MARK);
  });
});
