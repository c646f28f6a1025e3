/**
 * The live view (live-view.ts) behind a session's `live_view_url`, on the emulator's real server
 * over a fake runtime: the URL is a capability (its token, that session's, while it runs), and
 * every refusal is the emulator's one error answer.
 */
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../src/emulator/options.js';
import { createCdpProxy, createLiveView } from '../../../src/emulator/runtime/index.js';
import { startWithParts } from '../../../src/emulator/start.js';
import { client } from '../helpers/emulator.js';
import { fakeParts } from '../helpers/fake-runtime.js';

describe('live_view_url', () => {
  it('is a capability: its token opens it; none, another session\u2019s, or an ended session is 404', async () => {
    const parts = fakeParts();
    const logged: string[] = [];
    const logger = (_level: string, message: string) => void logged.push(message);
    const local = await startWithParts(resolveOptions({ logger }), {
      ...parts,
      createProxy: createCdpProxy,
      createLiveView,
    });
    try {
      const drive = client(local.url, local.token);
      const open = async () => {
        const { id } = (
          await drive('POST', '/sessions', { body: { proxy_password: local.proxyPassword } })
        ).body.data;
        const url = new URL(
          (await drive('GET', `/sessions/${id}/connection`)).body.data.live_view_url,
        );
        return { id, url, token: url.searchParams.get('token') as string };
      };
      const a = await open();
      const b = await open();
      expect(a.url.pathname).toBe(`/live/${a.id}`);
      expect(Buffer.from(a.token, 'base64url')).toHaveLength(32);
      expect(a.token).not.toBe(b.token);

      expect((await fetch(a.url)).status).toBe(200);
      const status = await fetch(`${local.url}/live/${a.id}/status?token=${a.token}`);
      expect(await status.json()).toEqual({ status: 'running' });
      for (const path of ['', '/stream', '/status']) {
        const base = `${local.url}/live/${a.id}${path}`;
        expect((await fetch(base)).status, `${path} without a token`).toBe(404);
        expect((await fetch(`${base}?token=${b.token}`)).status, `${path} with b's`).toBe(404);
      }

      const post = await fetch(`${local.url}/live/${b.id}?token=${b.token}`, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('x-emulator-version')).toEqual(expect.any(String));
      expect(await post.json()).toEqual({ error: 'method not allowed' });
      const head = await fetch(a.url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('referrer-policy')).toBe('no-referrer');
      const missing = await fetch(`${local.url}/live/${a.id}?token=${b.token}`);
      expect(await missing.json()).toEqual({ error: 'session not found or no longer running' });

      await drive('DELETE', `/sessions/${a.id}`);
      expect((await fetch(a.url)).status).toBe(404);
      expect((await fetch(b.url)).status).toBe(200);
      // Refused and foreign requests are logged too: never with a live view token.
      await fetch(`${local.url}/live/${b.id}?token=${b.token}`, {
        headers: { origin: 'https://attacker.example' },
      });
      expect(logged.length).toBeGreaterThan(0);
      expect(logged.filter((line) => line.includes(a.token) || line.includes(b.token))).toEqual([]);
    } finally {
      await local.close();
    }
  });
});
