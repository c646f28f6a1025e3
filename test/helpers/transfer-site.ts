/**
 * The loopback site of the download and upload tests: files to download in every way a page
 * offers one, and a form that uploads a file and answers with the sha256 of what it received
 * (undici's multipart parser, the one Node's own `Response.formData()` uses).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BrowserApi } from '../../src/browser-api/index.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';

export interface TransferSite {
  origin: string;
  url(path: string): string;
  /** The bytes of `/file.bin` (an attachment) and their sha256. */
  readonly file: Buffer;
  readonly fileSha: string;
  /** Requests of `/file.bin` the site answered. */
  fileRequests(): number;
  close(): Promise<void>;
}

export const sha256 = (bytes: Buffer | Uint8Array): string =>
  createHash('sha256').update(bytes).digest('hex');

/** Deterministic, not repetitive bytes (so a shifted or dropped chunk changes the hash). */
export function patternBytes(size: number, seed = 1): Buffer {
  const bytes = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

const HOME = `<!doctype html><title>Transfers</title>
<a id="attachment" href="/file.bin">attachment</a>
<a id="download-attr" download="notes.txt" href="/plain.txt">a download attribute</a>
<a id="data" download="hello.txt" href="data:text/plain;base64,aGVsbG8gZnJvbSBkYXRh">data URL</a>
<a id="blob" download="blob.txt">blob URL</a>
<a id="page" href="/plain.txt">a text page</a>
<button id="blob-revoked">a blob: URL revoked at once</button>
<script>
  document.getElementById('blob').href = URL.createObjectURL(new Blob(['made in the page']));
  document.getElementById('blob-revoked').onclick = () => {
    const a = document.createElement('a');
    a.download = 'gone.txt';
    a.href = URL.createObjectURL(new Blob(['gone']));
    a.click();
    URL.revokeObjectURL(a.href);
  };
</script>`;

const UPLOAD = `<!doctype html><title>Upload</title>
<form id="form" method="post" action="/upload" enctype="multipart/form-data">
  <input type="file" id="file" name="file" multiple>
  <button id="send">send</button>
</form>`;

export async function startTransferSite(fileBytes = 8 * 1024 * 1024): Promise<TransferSite> {
  const file = patternBytes(fileBytes);
  let fileRequests = 0;
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(HOME);
    } else if (path === '/file.bin') {
      fileRequests++;
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="export.bin"',
        'content-length': String(file.length),
      });
      res.end(file);
    } else if (path === '/endless-frame') {
      // Another site's frame whose response is a download that never ends.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<!doctype html><title>framed</title><iframe src="http://other.test/endless.bin"></iframe>',
      );
    } else if (path === '/endless.bin') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(256 * 1024, 7);
      const timer = setInterval(() => res.write(chunk), 5);
      res.on('close', () => clearInterval(timer));
    } else if (path === '/plain.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('plain text, rendered or saved');
    } else if (path === '/upload' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(UPLOAD);
    } else if (path === '/upload' && req.method === 'POST') {
      const form = await new Response(Readable.toWeb(req) as ReadableStream, {
        headers: { 'content-type': req.headers['content-type'] ?? '' },
      }).formData();
      const files = await Promise.all(
        form.getAll('file').map(async (entry) => {
          const part = entry as File;
          const bytes = new Uint8Array(await part.arrayBuffer());
          return { name: part.name, type: part.type, size: bytes.length, sha256: sha256(bytes) };
        }),
      );
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><pre id="result">${JSON.stringify(files)}</pre>`);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    file,
    fileSha: sha256(file),
    fileRequests: () => fileRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The transfer site published as `files.test` on a remote emulator, a client and a temp dir. */
export interface RemoteTransfers {
  emu: EmulatorHandle;
  site: TransferSite;
  api: BrowserApi;
  /** A client folder of the test's own: the remote browser's disk has none of it. */
  dir: string;
  close(): Promise<void>;
}

/**
 * Starts the site and an emulator on `isolation: 'remote'` whose internet has it as
 * `files.test`: the browser's disk is not the client's, so only bytes brought over CDP arrive
 * (and a client path handed to the browser finds nothing).
 */
export async function openRemoteTransfers(
  dirPrefix: string,
  fileBytes?: number,
): Promise<RemoteTransfers> {
  const site = await startTransferSite(fileBytes);
  const emu = await startEmulator({
    ffmpegPath: false,
    isolation: 'remote',
    internet: { 'files.test': site.origin, 'other.test': site.origin },
  });
  if (emu.isolation !== 'remote') throw new Error(`isolation is ${emu.isolation}, not remote`);
  const api = new BrowserApi({
    baseUrl: emu.url,
    token: emu.token,
    proxyPassword: emu.proxyPassword,
  });
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  return {
    emu,
    site,
    api,
    dir,
    close: async () => {
      await api.close();
      await Promise.all([emu.close(), site.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
