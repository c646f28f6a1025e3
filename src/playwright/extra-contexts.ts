/**
 * The silent trap of a remote browser: `browser.newPage()` and `browser.newContext()` work, but
 * open a context the service does not record, proxy-pin or show in the live view (those follow
 * the session's default context). The first such call in a process emits one warning naming
 * the consequence and the fix; `extraContexts` turns it into an error or silences it. The
 * native Browser is patched on the instance, never wrapped in a Proxy.
 */
import type { Browser } from 'playwright-core';
import { RemoteBrowserError } from '../http/errors.js';

export type ExtraContextsPolicy = 'warn' | 'error' | 'allow';

export interface ExtraContextsOption {
  /**
   * What `browser.newPage()` / `browser.newContext()` do on the remote browser. Both open a
   * second context, which the session's recording and live view do not show. `'warn'`: the
   * first call in the process emits one warning (code `REMOTE_BROWSER_EXTRA_CONTEXT`) that
   * names `defaultPage(browser)`; `'error'`: every such call throws `ExtraContextError` before
   * opening anything; `'allow'`: nothing is said (code that manages its own contexts on
   * purpose, like the Playwright Test fixture in worker scope). Default: `'warn'`.
   */
  extraContexts?: ExtraContextsPolicy;
}

/** `browser.newPage()`/`newContext()` on a remote browser launched with `extraContexts: 'error'`. */
export class ExtraContextError extends RemoteBrowserError {
  override name = 'ExtraContextError';
}

export const EXTRA_CONTEXT_WARNING_CODE = 'REMOTE_BROWSER_EXTRA_CONTEXT';

let warned = false;

function explain(method: string): string {
  return (
    `browser.${method}() opens a second browser context on the remote session: the session's ` +
    'recording and live view follow its default context, so what happens in the new one does ' +
    'not appear in them. Use `defaultPage(browser)` from remote-browser/playwright for the ' +
    "session's own page (or `browser.contexts()[0]` for its default context)."
  );
}

/** Installs the policy on a freshly connected remote browser (checked by the entry's option schema). */
export function guardExtraContexts(browser: Browser, policy: ExtraContextsPolicy = 'warn'): void {
  if (policy === 'allow') return;
  const check = (method: string) => {
    if (policy === 'error') {
      throw new ExtraContextError(
        `${explain(method)} This browser was launched with extraContexts: 'error'; ` +
          "set extraContexts: 'allow' to open extra contexts on purpose.",
      );
    }
    if (warned) return;
    warned = true;
    process.emitWarning(
      `remote-browser: ${explain(method)} Set extraContexts: 'allow' to silence this, ` +
        "or 'error' to make it an error.",
      { type: 'RemoteBrowserWarning', code: EXTRA_CONTEXT_WARNING_CODE },
    );
  };
  const { newContext, newPage } = browser;
  // Own properties shadow the prototype's. Playwright's newPage() calls this.newContext(), so
  // checking in both still warns once and names the method the user called.
  browser.newPage = async function checkedNewPage(this: Browser, ...args) {
    check('newPage');
    return newPage.apply(browser, args);
  };
  browser.newContext = async function checkedNewContext(this: Browser, ...args) {
    check('newContext');
    return newContext.apply(browser, args);
  };
}
