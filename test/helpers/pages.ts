/** A loopback site for end-to-end tests: the remote (emulated) browser navigates here. */
import { startLoopbackSite } from './loopback-site.js';

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

export function startTestSite(): Promise<TestSite> {
  return startLoopbackSite({
    ...PAGES,
    '/': {
      html: PAGES['/'] as string,
      headers: { 'set-cookie': 'visited=yes; Max-Age=3600; Path=/' },
    },
  });
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
