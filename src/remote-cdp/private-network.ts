/**
 * The tunnel's door rule, as Chromium's Private Network Access rule for a local browser: a
 * top-level navigation (the user's `page.goto`, a link, a sign-in provider redirecting back to
 * `localhost`) may reach an exposed host; any other request (subresource, `fetch`, `<iframe>`,
 * worker script, a worker's own requests) only when the document that started it is itself on
 * an exposed host.
 *
 * Who started a request is read from the two headers a page cannot forge: `Origin` (sent on
 * CORS and non-GET requests; `null` from opaque origins) and `Referer` (a page can only drop
 * it or set it to its own URL). Every one present must be exposed, and at least one must be
 * present: a request without either (a `no-referrer` page, a `data:` document) is refused.
 * Failing closed costs an exposed page that sets `Referrer-Policy: no-referrer` its
 * subresources; docs/remote.md says so.
 */
import type { ExposedHosts } from './host-patterns.js';
import type { PausedRequest } from './remote-cdp.js';

export function mayReachClient(
  event: PausedRequest,
  isPageFrame: (frameId: string) => boolean,
  hosts: ExposedHosts,
): boolean {
  if (event.resourceType === 'Document' && isPageFrame(event.frameId)) return true;
  const starters = [header(event, 'origin'), header(event, 'referer')].filter(
    (value): value is string => value !== undefined,
  );
  if (starters.length === 0) return false;
  return starters.every((value) => {
    try {
      return hosts.matches(new URL(value));
    } catch {
      return false; // `null`, or anything else that is no URL
    }
  });
}

function header(event: PausedRequest, name: string): string | undefined {
  for (const [key, value] of Object.entries(event.request.headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}
