/**
 * Shared by the examples: use the real service when REMOTE_BROWSER_URL is set, otherwise the
 * embedded emulator, and serve the pages the examples visit from loopback (no internet).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmulator } from 'remote-browser/emulator';

const PRODUCTS = ['Trail shoes', 'Rain jacket', 'Wool socks', 'Head lamp'];

export async function setup(): Promise<{ site: string; close(): Promise<void> }> {
  let closeEmulator = async () => {};
  if (!process.env.REMOTE_BROWSER_URL) {
    const emulator = await startEmulator();
    process.env.REMOTE_BROWSER_URL = emulator.url;
    process.env.REMOTE_BROWSER_TOKEN = emulator.token;
    process.env.REMOTE_BROWSER_PROXY_PASSWORD = emulator.proxyPassword;
    closeEmulator = () => emulator.close();
  }
  const server = createServer((req, res) => {
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
    if (req.url === '/login') headers['set-cookie'] = 'session=signed-in; Max-Age=86400; Path=/';
    res.writeHead(200, headers);
    res.end(
      req.url === '/products'
        ? `<!doctype html><title>Products</title><ul>${PRODUCTS.map((p, i) => `<li class="product" data-price="${(i + 1) * 10}">${p}</li>`).join('')}</ul>`
        : `<!doctype html><title>Shop</title><p>${req.url === '/account' ? 'cookie: <span id="c"></span>' : 'Welcome'}</p><script>var c=document.getElementById('c'); if (c) c.textContent=document.cookie||'none'</script>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    site: `http://127.0.0.1:${port}`,
    async close() {
      server.close();
      await closeEmulator();
    },
  };
}
