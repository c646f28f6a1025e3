/**
 * `defaultPage(browser)`: the remote session's own tab. The service records, proxies and shows
 * in the live view the session's default context; `browser.newPage()` would open a second
 * context outside all three, and `browser.contexts()[0].pages()[0]` does not compile under
 * `noUncheckedIndexedAccess`.
 */
import type { Browser, Page } from 'playwright-core';
import { RemoteBrowserError } from '../http/errors.js';

/** The browser has no default context, or the default context has no open page. */
export class DefaultPageError extends RemoteBrowserError {
  override name = 'DefaultPageError';
}

/**
 * The first page of the session's default context: the tab the service's recording and live
 * view show. Throws `DefaultPageError` when there is none (the browser is not connected over
 * CDP, or that tab was closed).
 */
export function defaultPage(browser: Browser): Page {
  const context = browser.contexts()[0];
  if (!context) {
    throw new DefaultPageError(
      'defaultPage: this browser has no default context; it must come from launchRemote(), ' +
        'connectRemote() or chromium.launch() of remote-browser/playwright, and be connected',
    );
  }
  const page = context.pages()[0];
  if (!page) {
    throw new DefaultPageError(
      "defaultPage: the session's default context has no open page (its first tab was " +
        'closed); open one in that context, e.g. `await browser.contexts()[0]?.newPage()`',
    );
  }
  return page;
}
