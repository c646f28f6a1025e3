/**
 * The command lines of a sandbox, as built: bwrap's (nobody, no capabilities, its own
 * namespaces, only the forwarder and the `/etc` files Chromium needs bound, nothing of the host's
 * DevTools dir) and Chromium's inside it. What they hold when run is sandbox.e2e.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { sandboxedCommand, sandboxLaunch } from '../../../src/emulator/runtime/sandbox.js';

describe('sandboxLaunch', () => {
  const launch = sandboxLaunch({
    bwrap: '/usr/bin/bwrap',
    executable: process.execPath,
    tempDir: '/work/t/abc',
    userDataDir: '/work/s-1/profile',
    forwarder: '/opt/pkg/dist/sandbox-forwarder.js',
  });
  const { args } = launch;
  const pairs = (flag: string) =>
    args.flatMap((arg, i) => (arg === flag ? [`${args[i + 1]} ${args[i + 2]}`] : []));

  it('runs the forwarder as nobody, without capabilities, in namespaces of its own', () => {
    expect(launch.command).toBe('/usr/bin/bwrap');
    expect(args.join(' ')).toContain('--unshare-user --uid 65534 --gid 65534 --cap-drop ALL');
    for (const flag of ['--unshare-net', '--unshare-pid', '--unshare-ipc', '--die-with-parent']) {
      expect(args).toContain(flag);
    }
    // node and its file only: Chromium's command line comes on the forwarder's stdin.
    const command = args.slice(args.indexOf('--') + 1);
    expect(command.slice(1)).toEqual(['/forwarder.js']);
    expect(pairs('--ro-bind')).toContain('/opt/pkg/dist/sandbox-forwarder.js /forwarder.js');
    expect(args.join(' ')).not.toContain('RB_COMMAND');
    expect(args.join(' ')).not.toContain('--headless');
    expect(launch.env).toEqual({ LANG: expect.any(String) });
  });

  it('binds its own dirs and only the /etc entries Chromium needs, never a secret', () => {
    expect(pairs('--bind')).toEqual(['/work/t/abc /tmp', '/work/s-1/profile /profile']);
    const roots = pairs('--ro-bind').map((pair) => pair.split(' ')[1]!);
    expect(roots).not.toContain('/etc');
    expect(roots).not.toContain('/opt');
    expect(roots).not.toContain('/');
    expect(roots.some((path) => /^\/etc\/(shadow|gshadow|ssh|sudoers)/.test(path))).toBe(false);
    expect(args.join(' ')).not.toContain('/work/t/abc.host');
  });
});

describe('sandboxedCommand', () => {
  it("moves Chromium's profile and DevTools port into the sandbox and sends it through its exit", () => {
    const command = sandboxedCommand(
      '/usr/bin/chromium',
      ['--headless', '--remote-debugging-port=0', '--user-data-dir=/host/profile', 'about:blank'],
      'SPKI=',
    );
    expect(command).toEqual([
      '/usr/bin/chromium',
      '--headless',
      '--user-data-dir=/profile',
      '--remote-debugging-port=9222',
      '--enable-automation',
      '--proxy-server=http://127.0.0.1:8118',
      '--proxy-bypass-list=<-loopback>',
      '--ignore-certificate-errors-spki-list=SPKI=',
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      'about:blank',
    ]);
  });
});
