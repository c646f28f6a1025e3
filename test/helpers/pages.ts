/** A loopback site for end-to-end tests: the remote (emulated) browser navigates here. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const PAGES: Record<string, string> = {
  '/': '<!doctype html><title>Home</title><h1>Welcome</h1><a href="/form">form</a>',
  '/form':
    '<!doctype html><title>Form</title><input id="q"><button id="go" onclick="document.title=\'Sent \'+document.getElementById(\'q\').value">Go</button>',
  '/cookie':
    '<!doctype html><title>Cookie</title><script>document.title = "cookie=" + (document.cookie || "none")</script>',
  '/slow': '<!doctype html><title>Slow</title>',
};

export interface TestSite {
  url(path?: string): string;
  close(): Promise<void>;
}

export async function startTestSite(): Promise<TestSite> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    const html = PAGES[path];
    if (!html) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
    if (path === '/') headers['set-cookie'] = 'visited=yes; Max-Age=3600; Path=/';
    res.writeHead(200, headers).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/') => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
