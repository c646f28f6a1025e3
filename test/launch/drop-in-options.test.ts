import { describe, expect, it } from 'vitest';
import {
  IGNORED_OPTION_CODE,
  isLocalDefault,
  mapArgs,
  mapUserDataDir,
  settleIgnored,
} from '../../src/launch/drop-in-options.js';
import { LaunchError } from '../../src/launch/errors.js';
import { settled, useIgnoredWarnings } from './ignored-warnings.js';

const warnings = useIgnoredWarnings();

describe('settleIgnored', () => {
  it('names each ignored option once per process, with a stable code', async () => {
    const args = { option: 'args: --no-sandbox', why: 'local' };
    settleIgnored('chromium.launch', [args, { option: 'proxy', why: 'session proxy' }], false);
    settleIgnored('chromium.launch', [args], false);
    settleIgnored('chromium.launch', [args, { option: 'channel', why: 'local-only' }], false);
    await settled();
    expect(warnings.map((w) => (w as { code?: string }).code)).toEqual([
      IGNORED_OPTION_CODE,
      IGNORED_OPTION_CODE,
    ]);
    expect(warnings[0]!.message).toMatch(
      /`args: --no-sandbox` \(local\); `proxy` \(session proxy\)/,
    );
    expect(warnings[1]!.message).toMatch(/ignored `channel` \(local-only\)\./);
    expect(warnings[1]!.message).not.toContain('no-sandbox');
  });

  it('throws a LaunchError naming every option in strict mode, and warns nothing', async () => {
    expect(() =>
      settleIgnored(
        'puppeteer.launch',
        [
          { option: 'userDataDir', why: 'a' },
          { option: 'args: --x', why: 'b' },
        ],
        true,
      ),
    ).toThrow(LaunchError);
    expect(() => settleIgnored('x', [{ option: 'userDataDir', why: 'a' }], true)).toThrow(
      /`userDataDir` \(a\) cannot apply to a remote browser/,
    );
    await settled();
    expect(warnings).toHaveLength(0);
  });
});

describe('mapArgs', () => {
  it('maps window size, language and user agent, and names other switches without values', () => {
    const mapped = mapArgs([
      '--window-size=1024,768',
      '--lang=de-DE',
      '--user-agent="Agent X"',
      '--proxy-server=http://user:secret@host:1',
      '--no-sandbox',
    ]);
    expect(mapped.windowSize).toEqual({ width: 1024, height: 768 });
    expect(mapped.lang).toBe('de-DE');
    expect(mapped.userAgent).toBe('Agent X');
    expect(mapped.ignored.map((i) => i.option)).toEqual([
      'args: --proxy-server',
      'args: --no-sandbox',
    ]);
    expect(mapped.ignored[0]!.why).toMatch(/session's own proxy/);
    expect(JSON.stringify(mapped.ignored)).not.toContain('secret');
  });

  it('ignores a malformed --window-size instead of guessing', () => {
    expect(mapArgs(['--window-size=big']).ignored.map((i) => i.option)).toEqual([
      'args: --window-size',
    ]);
  });
});

describe('mapUserDataDir', () => {
  it('is a fresh session for an empty dir, a profile for a bare name, a path only when asked', () => {
    expect(mapUserDataDir('', undefined)).toEqual({ kind: 'none' });
    expect(mapUserDataDir(undefined, 'profile')).toEqual({ kind: 'none' });
    expect(mapUserDataDir('checkout', undefined)).toEqual({ kind: 'profile', name: 'checkout' });
    expect(mapUserDataDir('/tmp/crawl/shop/', undefined).kind).toBe('ignored');
    expect(mapUserDataDir('/tmp/crawl/shop/', 'profile')).toEqual({
      kind: 'profile',
      name: 'shop',
    });
    expect(mapUserDataDir('C:\\data\\shop', 'profile')).toEqual({ kind: 'profile', name: 'shop' });
  });
});

describe('isLocalDefault', () => {
  it('treats the local defaults as nothing to warn about', () => {
    expect(isLocalDefault('handleSIGINT', true)).toBe(true);
    expect(isLocalDefault('handleSIGINT', false)).toBe(false);
    expect(isLocalDefault('args', [])).toBe(true);
    expect(isLocalDefault('ignoreDefaultArgs', ['--enable-automation'])).toBe(false);
    expect(isLocalDefault('executablePath', '/usr/bin/chromium')).toBe(false);
  });
});
