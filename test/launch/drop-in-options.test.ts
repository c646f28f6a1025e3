/**
 * The drop-ins' mapping of local launch options: which args map, which are ignored and why, how
 * a user-data directory becomes a profile name, which values count as local defaults, and the
 * exact wording of the warning and the strict error (the "rules"/"wording" blocks: edges issue
 * 18's mutation pass found unpinned).
 */
import { describe, expect, it } from 'vitest';
import {
  IGNORED_OPTION_CODE,
  isLocalDefault,
  mapArgs,
  mapUserDataDir,
  resetIgnoredWarnings,
  settleIgnored,
  WHY,
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

const USER_DATA_DIR_WHY =
  "a local directory cannot reach the remote browser, so the session starts with a fresh profile; `remote: { userDataDir: 'profile' }` uses a saved profile named after the directory";

describe('settleIgnored wording', () => {
  it('an empty list neither throws in strict mode nor warns', async () => {
    expect(() => settleIgnored('chromium.launch', [], true)).not.toThrow();
    settleIgnored('chromium.launch', [], false);
    await settled();
    expect(warnings).toHaveLength(0);
  });

  it('the strict error says "it" for one option and "them" for several', () => {
    const one = () => settleIgnored('chromium.launch', [{ option: 'proxy', why: 'p' }], true);
    expect(one).toThrow(LaunchError);
    expect(one).toThrow(
      'chromium.launch: `proxy` (p) cannot apply to a remote browser; remove it, or drop `remote.strict` to ignore it with a warning',
    );
    const two = () =>
      settleIgnored(
        'puppeteer.launch',
        [
          { option: 'proxy', why: 'p' },
          { option: 'args: --x', why: 'x' },
        ],
        true,
      );
    expect(two).toThrow(
      'puppeteer.launch: `proxy` (p); `args: --x` (x) cannot apply to a remote browser; remove them, or drop `remote.strict` to ignore them with a warning',
    );
  });

  it('the warning is a RemoteBrowserWarning with the code and the whole sentence', async () => {
    settleIgnored('chromium.launch', [{ option: 'channel', why: 'local' }], false);
    await settled();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.name).toBe('RemoteBrowserWarning');
    expect(warnings[0]!.code).toBe(IGNORED_OPTION_CODE);
    expect(warnings[0]!.message).toBe(
      'chromium.launch: ignored `channel` (local). Set `remote: { strict: true }` to make this an error.',
    );
  });

  it('resetIgnoredWarnings lets the same option warn again', async () => {
    settleIgnored('x', [{ option: 'channel', why: 'w' }], false);
    settleIgnored('x', [{ option: 'channel', why: 'w' }], false);
    resetIgnoredWarnings();
    settleIgnored('x', [{ option: 'channel', why: 'w' }], false);
    await settled();
    expect(warnings).toHaveLength(2);
  });
});

describe('mapArgs rules', () => {
  const ignoredOf = (args: unknown) => mapArgs(args).ignored.map((i) => i.option);

  it('a value that is not an array maps nothing, and non-string entries are skipped', () => {
    expect(mapArgs('--no-sandbox')).toEqual({ ignored: [] });
    expect(mapArgs(undefined)).toEqual({ ignored: [] });
    expect(ignoredOf([1, null, { a: 1 }, '--mute-audio'])).toEqual(['args: --mute-audio']);
  });

  it('takes W,H and WxH window sizes, rounded, and ignores zero or negative ones', () => {
    expect(mapArgs(['--window-size=1280x720']).windowSize).toEqual({ width: 1280, height: 720 });
    expect(mapArgs(['--window-size=1024.6,767.5']).windowSize).toEqual({
      width: 1025,
      height: 768,
    });
    for (const bad of ['--window-size=0,600', '--window-size=-800,600', '--window-size=800,-1']) {
      const mapped = mapArgs([bad]);
      expect(mapped.windowSize, bad).toBeUndefined();
      expect(mapped.ignored, bad).toEqual([
        { option: 'args: --window-size', why: WHY.localBinary },
      ]);
    }
  });

  it('a switch with an empty value is ignored by its name, not mapped', () => {
    const mapped = mapArgs(['--lang=', '--user-agent=', '--lang']);
    expect(mapped.lang).toBeUndefined();
    expect(mapped.userAgent).toBeUndefined();
    expect(mapped.ignored).toEqual([
      { option: 'args: --lang', why: WHY.localBinary },
      { option: 'args: --user-agent', why: WHY.localBinary },
      { option: 'args: --lang', why: WHY.localBinary },
    ]);
  });

  it('strips only a pair of quotes around the whole user agent', () => {
    expect(mapArgs(['--user-agent=Agent/1.0 (X)']).userAgent).toBe('Agent/1.0 (X)');
    expect(mapArgs(['--user-agent=Agent "X"']).userAgent).toBe('Agent "X"');
    expect(mapArgs(['--user-agent="Agent" X']).userAgent).toBe('"Agent" X');
    expect(mapArgs(['--user-agent=a=b']).userAgent).toBe('a=b');
  });

  it('names a switch without its value and gives the local-binary reason', () => {
    expect(mapArgs(['--proxy-bypass-list=secret.example', '--proxy-server']).ignored).toEqual([
      { option: 'args: --proxy-bypass-list', why: WHY.localBinary },
      { option: 'args: --proxy-server', why: WHY.proxy },
    ]);
  });
});

describe('mapUserDataDir rules', () => {
  const ignored = { kind: 'ignored', ignored: { option: 'userDataDir', why: USER_DATA_DIR_WHY } };

  it('null is a fresh session, like undefined and the empty string', () => {
    expect(mapUserDataDir(null, 'profile')).toEqual({ kind: 'none' });
  });

  it('a path is ignored with the reason unless asked for, whatever its separator', () => {
    expect(mapUserDataDir('/tmp/shop', undefined)).toEqual(ignored);
    expect(mapUserDataDir('/tmp/shop', 'ignore')).toEqual(ignored);
    expect(mapUserDataDir('data\\shop', 'ignore')).toEqual(ignored);
    expect(mapUserDataDir('.', undefined)).toEqual(ignored);
    expect(mapUserDataDir('..', undefined)).toEqual(ignored);
  });

  it('maps a path to its last segment, trimmed, past any trailing separators', () => {
    expect(mapUserDataDir('/tmp/shop//', 'profile')).toEqual({ kind: 'profile', name: 'shop' });
    expect(mapUserDataDir('C:\\data\\shop\\\\', 'profile')).toEqual({
      kind: 'profile',
      name: 'shop',
    });
    expect(mapUserDataDir('/tmp/ shop ', 'profile')).toEqual({ kind: 'profile', name: 'shop' });
  });

  it('a path without a usable last segment stays ignored even with the profile mapping', () => {
    for (const dir of ['.', '..', '/tmp/..', '/tmp/.', '/tmp/  /', '/']) {
      expect(mapUserDataDir(dir, 'profile'), dir).toEqual(ignored);
    }
  });

  it('a bare name is a profile name as written', () => {
    expect(mapUserDataDir('shop.v2', 'ignore')).toEqual({ kind: 'profile', name: 'shop.v2' });
  });
});

describe('isLocalDefault rules', () => {
  it.each([
    ['handleSIGINT', true],
    ['handleSIGTERM', true],
    ['handleSIGHUP', true],
    ['chromiumSandbox', false],
    ['devtools', false],
    ['ignoreDefaultArgs', false],
    ['pipe', false],
    ['dumpio', false],
    ['waitForInitialPage', true],
    ['enableExtensions', false],
  ])('%s: %s is the default, its opposite is not', (key, value) => {
    expect(isLocalDefault(key, value)).toBe(true);
    expect(isLocalDefault(key, !value)).toBe(false);
  });

  it('undefined and an empty array are defaults; a set array, env or other value is not', () => {
    expect(isLocalDefault('executablePath', undefined)).toBe(true);
    expect(isLocalDefault('ignoreDefaultArgs', [])).toBe(true);
    expect(isLocalDefault('args', ['--x'])).toBe(false);
    expect(isLocalDefault('env', process.env)).toBe(true);
    expect(isLocalDefault('env', { ...process.env })).toBe(false);
    expect(isLocalDefault('channel', 'chrome')).toBe(false);
  });
});
