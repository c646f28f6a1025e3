import type { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { openCommand, openInBrowser } from '../../src/cli/open-url.js';

const HOSTILE = 'https://x.example/&calc.exe';

describe('openCommand', () => {
  it.each([
    ['win32', 'rundll32.exe', ['url.dll,FileProtocolHandler', HOSTILE]],
    ['darwin', 'open', [HOSTILE]],
    ['linux', 'xdg-open', [HOSTILE]],
  ] as const)(
    'on %s runs %s with the URL as one argument and no shell',
    (platform, command, args) => {
      expect(openCommand(HOSTILE, platform)).toEqual({ command, args });
    },
  );

  it('never hands a URL to cmd on Windows, whatever it holds', () => {
    const raw = 'https://x.example/a b"&|^<>calc.exe';
    const opened = openCommand(raw, 'win32');
    expect(opened.command).not.toMatch(/cmd|powershell/i);
    // The WHATWG serialisation (Node 24 also escapes `^`, Node 20 keeps it): one argument.
    expect(opened.args).toEqual(['url.dll,FileProtocolHandler', new URL(raw).href]);
    expect(opened.args[1]).toMatch(/^https:\/\/x\.example\/a%20b%22&\|(\^|%5E)%3C%3Ecalc\.exe$/);
    // No space or quote left for Windows' argument quoting to interpret.
    expect(opened.args[1]).not.toMatch(/[\s"]/);
  });

  it('passes the re-serialised href, not the text the service sent', () => {
    expect(openCommand('HTTPS://X.Example:443/live?id=1', 'linux').args).toEqual([
      'https://x.example/live?id=1',
    ]);
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'ms-settings:',
    'not a url',
    '-a Calculator',
  ])('refuses %j with a typed error before running anything', (url) => {
    expect(() => openCommand(url, 'win32')).toThrow(
      expect.objectContaining({ name: 'CliError', code: 'invalid_url' }),
    );
  });
});

describe('openInBrowser', () => {
  function fakeSpawn(calls: unknown[][]): typeof spawn {
    return ((...args: unknown[]) => {
      calls.push(args);
      const child = Object.assign(new EventEmitter(), { unref() {} });
      queueMicrotask(() => child.emit('spawn'));
      return child;
    }) as unknown as typeof spawn;
  }

  it('spawns the launcher with an argument array, detached and without a shell', async () => {
    const calls: unknown[][] = [];
    await openInBrowser(HOSTILE, 'win32', fakeSpawn(calls));
    expect(calls).toHaveLength(1);
    const [command, args, options] = calls[0] as [string, string[], Record<string, unknown>];
    expect(command).toBe('rundll32.exe');
    expect(args).toEqual(['url.dll,FileProtocolHandler', HOSTILE]);
    expect(options).toMatchObject({ shell: false, detached: true, stdio: 'ignore' });
  });

  it('runs nothing for a URL that is not http(s)', async () => {
    const calls: unknown[][] = [];
    await expect(openInBrowser('file:///etc/passwd', 'linux', fakeSpawn(calls))).rejects.toThrow(
      /cannot be opened: only http and https/,
    );
    expect(calls).toHaveLength(0);
  });

  it('says the launcher could not run when it is missing', async () => {
    const { spawn: realSpawn } = await import('node:child_process');
    const missing = ((_c: string, a: string[], o: object) =>
      realSpawn('/nonexistent/launcher', a, o)) as unknown as typeof spawn;
    await expect(openInBrowser('https://x.example/', 'linux', missing)).rejects.toThrow(
      /could not run xdg-open/,
    );
  });
});
