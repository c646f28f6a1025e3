/** A tiny loopback website for e2e tests: a page with a form, a tall page, a cookie page. */
import type { EmulatorHandle } from '../../../src/emulator/index.js';
import { startLoopbackSite } from '../../helpers/loopback-site.js';

const PAGE = `<!doctype html><html><head><title>Local test page</title></head>
<body style="height:5000px"><h1 id="title">Hello emulator</h1>
<input id="name"><button id="go" onclick="document.getElementById('title').textContent='clicked:'+document.getElementById('name').value">Go</button>
<canvas id="c" width="200" height="100"></canvas>
<script>let n=0;setInterval(()=>{const g=document.getElementById('c').getContext('2d');g.fillStyle='hsl('+(n++*37%360)+',80%,50%)';g.fillRect(0,0,200,100)},100)</script>
</body></html>`;

export interface LocalSite {
  origin: string;
  close(): Promise<void>;
}

export function startLocalSite(): Promise<LocalSite> {
  return startLoopbackSite(
    {
      '/set-cookie': {
        html: '<html><title>cookie set</title></html>',
        headers: { 'set-cookie': 'remembered=yes; Max-Age=86400; Path=/' },
      },
      '/read-cookie': (req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          `<html><title>cookie</title><body id="cookie">${req.headers.cookie ?? ''}</body></html>`,
        );
      },
    },
    { fallback: PAGE, contentType: 'text/html' },
  );
}

/**
 * `site` published on the emulator's internet as `site.test`: a session's browser runs as on
 * another machine (isolation 'remote'), so a raw-CDP client or a page action reaches the site by
 * that name, never by its loopback origin.
 */
export async function publishLocalSite(
  emu: Pick<EmulatorHandle, 'admin'>,
  site: LocalSite,
): Promise<LocalSite> {
  await emu.admin.publish('site.test', site.origin);
  return { origin: 'http://site.test', close: () => site.close() };
}
