/**
 * `remote-browser doctor --geo <session-id>` (issue 35 item 5) on the emulator's remote isolation:
 * a session a `launchRemote()` browser (geo: 'exit' by default) is connected to agrees with its
 * exit; a session nobody applied geo to shows the emulator's own zone and en-US as mismatches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { launchRemote } from '../../src/playwright/launch-remote.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { runCli } from './cli-io.js';

const tempDir = useTempDirs();

/** The emulator's browsers run with its host's zone and en-US, as an unhardened machine. */
const HOST_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

let emu: EmulatorHandle;
let env: Record<string, string>;
let api: BrowserApi;

beforeAll(async () => {
  emu = await startEmulator({ ffmpegPath: false });
  expect(emu.isolation).toBe('remote');
  env = {
    REMOTE_BROWSER_URL: emu.browserUrl,
    REMOTE_BROWSER_TOKEN: emu.token,
    REMOTE_BROWSER_PROXY_PASSWORD: emu.proxyPassword,
    REMOTE_BROWSER_CACHE_DIR: await tempDir('cli-geo-cache-'),
  };
  api = new BrowserApi({ baseUrl: emu.url, token: emu.token, proxyPassword: emu.proxyPassword });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await emu?.close();
});

/** Runs `doctor --geo`; no credential and not the session's cdp_url token may be printed. */
async function doctorGeo(sessionId: string, ...flags: string[]) {
  const { cdp_url } = await api.sessions.connection(sessionId);
  const token = new URL(cdp_url ?? 'ws://x/').searchParams.get('token');
  const ran = await runCli(['doctor', '--geo', sessionId, ...flags], env);
  for (const secret of [emu.token, emu.proxyPassword, token ?? emu.token]) {
    expect(ran.all).not.toContain(secret);
  }
  return ran;
}

describe('doctor --geo', () => {
  it("says a launchRemote() session's page agrees with its exit (Tokyo)", async () => {
    const browser = await launchRemote({ api, country: 'jp', region: '13', city: 'tokyo' });
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      await page.goto('http://exit.test/');
      const id = (await api.sessions.list({ status: 'running' }))[0]!.id;
      const ran = await doctorGeo(id, '--json');
      expect({ code: ran.code, err: ran.err }).toEqual({ code: 0, err: '' });
      const check = JSON.parse(ran.out);
      expect(check).toMatchObject({
        session_id: id,
        coherent: true,
        exitCountry: 'jp',
        mismatches: [],
      });
      const byName = Object.fromEntries(
        (check.items as { name: string; status: string; actual: string }[]).map((i) => [i.name, i]),
      );
      expect(byName['timeZone (Intl)']).toMatchObject({ status: 'ok', actual: 'Asia/Tokyo' });
      expect(byName['timeZone (Date)']).toMatchObject({ status: 'ok' });
      expect(byName['navigator.language']).toMatchObject({ status: 'ok', actual: 'ja-JP' });
      expect(byName['Accept-Language']).toMatchObject({
        status: 'ok',
        actual: expect.stringMatching(/^ja-JP/),
      });
      // No geolocation permission was granted: the position is not read.
      expect(byName.geolocation).toMatchObject({ status: 'skipped' });
    } finally {
      await browser.close();
    }
  });

  it('names each value that disagrees when nobody applied geo, and exits 1', async () => {
    const s = await api.sessions.create({ country: 'jp', region: '13', city: 'tokyo' });
    try {
      await api.tools.navigate({ session_id: s.id, url: 'http://exit.test/' });
      const ran = await doctorGeo(s.id);
      expect(ran.code).toBe(1);
      expect(ran.out).toContain('exit country: jp');
      if (HOST_ZONE !== 'Asia/Tokyo') {
        expect(ran.out).toMatch(
          new RegExp(`✗ timeZone \\(Intl\\) +${HOST_ZONE}, the exit's is Asia/Tokyo`),
        );
      }
      expect(ran.out).toMatch(/✗ navigator\.language +en-US, the exit's is ja-JP/);
      expect(ran.out).toMatch(/✗ Accept-Language +en-US.*, the exit's is ja-JP/);
      expect(ran.out).toMatch(/not coherent with the exit$/);
    } finally {
      await api.sessions.end(s.id);
    }
  });

  it('refuses a session that is not running, in one line', async () => {
    const s = await api.sessions.create({});
    await api.sessions.end(s.id);
    const ran = await runCli(['doctor', '--geo', s.id], env);
    expect(ran.code).toBe(1);
    expect(ran.err).toMatch(new RegExp(`session ${s.id} is ended, not running`));
  });
});
