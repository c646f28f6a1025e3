/**
 * A sandboxed session's network as the runtime gets it: the exit listening in the session's temp
 * dir, Chromium's command line handed to its sandbox, the DevTools socket in the host's own dir,
 * and nothing left at close. The bwrap command line is sandbox.test.ts's; the sandbox itself
 * runs in test/emulator/runtime/sandbox.e2e.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Internet } from '../../../src/emulator/network/internet.js';
import { sandboxNetwork } from '../../../src/emulator/network/sandbox-network.js';
import { hostSocketDir } from '../../../src/emulator/runtime/isolated-network.js';
import type { BootedSandbox } from '../../../src/emulator/runtime/sandbox-process.js';
import type { ExitIdentity, LaunchSpec } from '../../../src/emulator/runtime/types.js';

const identity = (): ExitIdentity => ({
  ip: '198.51.100.7',
  country: 'us',
  region: 'ca',
  city: 'los_angeles',
  zip: '90001',
  isp: 'comcast',
  connection_type: 'residential',
  session_type: 'rotating',
});

let dir: string;
let tempDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbn-'));
  tempDir = join(dir, 't');
  await mkdir(tempDir);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const network = () =>
  sandboxNetwork({
    bwrap: '/usr/bin/bwrap',
    internet: new Internet(),
    exitTls: { secureContextFor: () => Promise.reject(new Error('no https here')) },
    exitSpki: 'A'.repeat(43) + '=',
    forwarder: '/opt/pkg/dist/sandbox-forwarder.js',
  });
const spec: LaunchSpec = { sessionId: 's1', record: false, exitIdentity: identity };

describe('sandboxNetwork', () => {
  it('refuses a launch without an exit identity, before opening anything', async () => {
    await expect(
      network().isolate({ sessionId: 's1', record: false }, tempDir, join(dir, 'profile')),
    ).rejects.toThrow('session s1: a sandboxed launch needs its exit identity');
    expect(existsSync(hostSocketDir(tempDir))).toBe(false);
  });

  it("opens the exit in the temp dir and answers exit.test with the session's identity", async () => {
    const isolated = await network().isolate(spec, tempDir, join(dir, 'profile'));
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(
          { socketPath: join(tempDir, 'exit.sock'), path: 'http://exit.test/', host: 'exit.test' },
          (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(JSON.parse(body)).toMatchObject({ ip: '198.51.100.7', country: 'us' });
    } finally {
      await isolated.close();
    }
  });

  it("puts the DevTools socket in the host's own 0700 dir, and removes it at close", async () => {
    const isolated = await network().isolate(spec, tempDir, join(dir, 'profile'));
    const hostDir = hostSocketDir(tempDir);
    expect(isolated.devtools).toEqual({ socketPath: join(hostDir, 'devtools.sock') });
    expect(statSync(hostDir).mode & 0o777).toBe(0o700);
    await isolated.close();
    expect(existsSync(hostDir)).toBe(false);
    expect(existsSync(join(tempDir, 'exit.sock'))).toBe(false);
  });

  it("hands Chromium's command line, with the sandbox's profile, port and exit, to the sandbox booted ahead", async () => {
    const given: (readonly string[])[] = [];
    const booted: BootedSandbox = {
      run: (command) => {
        given.push(command);
        return { pid: 1 } as ChildProcess;
      },
      alive: () => true,
      kill: async () => {},
    };
    const isolated = await network().isolate(spec, tempDir, join(dir, 'profile'), booted);
    try {
      const child = isolated.launcher('/usr/bin/chromium', [
        '--headless',
        '--remote-debugging-port=0',
        `--user-data-dir=${join(dir, 'profile')}`,
        'about:blank',
      ]);
      expect(child.pid).toBe(1);
      expect(given).toHaveLength(1);
      const [chromium] = given as [string[]];
      expect(chromium[0]).toBe('/usr/bin/chromium');
      expect(chromium).toContain('--user-data-dir=/profile');
      expect(chromium).not.toContain(`--user-data-dir=${join(dir, 'profile')}`);
      expect(chromium).toContain('--remote-debugging-port=9222');
      expect(chromium).toContain('--proxy-server=http://127.0.0.1:8118');
      expect(chromium).toContain(`--ignore-certificate-errors-spki-list=${'A'.repeat(43)}=`);
      expect(chromium.at(-1)).toBe('about:blank');
      expect(lstatSync(join(tempDir, 'exit.sock')).isSocket()).toBe(true);
    } finally {
      await isolated.close();
    }
  });
});
