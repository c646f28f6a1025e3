/**
 * The REST page actions, run over the runtime's own CDP session on the current page. Every CDP
 * call gets `actionTimeoutMs`; no answer in time (a hung renderer, a dead browser) is a
 * PageUnresponsiveError, which the routes turn into 502.
 */
import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../../remote-cdp/cdp-channel.js';
import {
  CdpClosedError,
  type CdpConnection,
  CdpProtocolError,
  CdpTimeoutError,
} from '../../remote-cdp/cdp-connection.js';
import type { CurrentPage } from './current-page.js';
import {
  NavigationError,
  type PageActions,
  PageScriptError,
  PageUnresponsiveError,
  SelectorNotFoundError,
} from './types.js';

const OBJECT_GROUP = 'remote-browser-actions';

// Serialising the doctype keeps `content()` a complete document, as a browser's "save page" would.
const CONTENT_EXPRESSION = `(() => {
  const d = document.doctype;
  return (d ? new XMLSerializer().serializeToString(d) + '\\n' : '') + document.documentElement.outerHTML;
})()`;

// Puts the caret at the end so `type` appends like a person typing into a filled field; some
// input types (email, number) have no selection API and throw, which is fine.
const FOCUS_FUNCTION = `function () {
  this.focus();
  try { const n = this.value.length; this.setSelectionRange(n, n); } catch {}
  return document.activeElement === this || this.contains(document.activeElement);
}`;

/** The current page's flat CDP session; every command has the action timeout. */
type Page = CdpSession;

export interface PageActionsOptions {
  timeoutMs: number;
  onActivity: () => void;
}

export function createPageActions(
  cdp: CdpConnection,
  currentPage: CurrentPage,
  { timeoutMs, onActivity }: PageActionsOptions,
): PageActions {
  /** Runs `fn` against the current page, translating a silent browser into PageUnresponsiveError. */
  async function onPage<T>(
    action: string,
    fn: (page: Page, sessionId: string) => Promise<T>,
  ): Promise<T> {
    onActivity();
    try {
      const { sessionId } = (await currentPage.get({ create: true, timeoutMs }))!;
      return await fn(cdp.session(sessionId, { timeoutMs }), sessionId);
    } catch (error) {
      if (error instanceof CdpTimeoutError || error instanceof CdpClosedError) {
        throw new PageUnresponsiveError(`${action}: the page did not respond (${error.message})`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  return {
    navigate: (url) =>
      onPage('navigate', (page, sessionId) => navigate(cdp, page, sessionId, url, timeoutMs)),
    content: () =>
      onPage('content', async (page) => String(await evaluate(page, CONTENT_EXPRESSION))),
    screenshot: () =>
      onPage('screenshot', async (page) => {
        const { data } = await page.send('Page.captureScreenshot', { format: 'png' });
        return Buffer.from(data, 'base64');
      }),
    executeCode: (code) => onPage('executeCode', (page) => executeCode(page, code)),
    pdf: () =>
      onPage('pdf', async (page) => {
        const { data } = await page.send('Page.printToPDF', { printBackground: true });
        return Buffer.from(data, 'base64');
      }),
    click: (selector) => onPage('click', (page) => click(page, selector)),
    type: (selector, text) => onPage('type', (page) => type(page, selector, text)),
    // scrollBy rather than a synthetic mouse wheel: wheel scrolling is smooth and asynchronous,
    // so the page would still be moving when the action answers.
    scroll: (x, y) =>
      onPage('scroll', async (page) => {
        await evaluate(
          page,
          `window.scrollBy({ left: ${Number(x) || 0}, top: ${Number(y) || 0}, behavior: 'instant' })`,
        );
      }),
  };
}

/** Navigates and waits for the new document's load event (or the page's end). */
async function navigate(
  cdp: CdpConnection,
  page: Page,
  sessionId: string,
  url: string,
  timeoutMs: number,
): Promise<void> {
  // Collect load events from before Page.navigate answers: a fast page can load first.
  const loaded = new Set<string>();
  let wake: (() => void) | undefined;
  let offDetach = () => {};
  const off = page.on('Page.lifecycleEvent', (event) => {
    if (event.name !== 'load') return;
    loaded.add(event.loaderId);
    wake?.();
  });
  try {
    // Chromium refuses some URLs outright (a protocol error), others in the answer's errorText.
    const answer = await page.send('Page.navigate', { url }).catch((error: unknown) => {
      if (!(error instanceof CdpProtocolError)) throw error;
      return { errorText: error.message, loaderId: undefined };
    });
    if (answer.errorText)
      throw new NavigationError(`navigate to ${url} failed: ${answer.errorText}`);
    const loaderId = answer.loaderId;
    // No loaderId: a same-document navigation (#hash), nothing more will load.
    if (!loaderId || loaded.has(loaderId)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new CdpTimeoutError(`no load event within ${timeoutMs} ms`)),
        timeoutMs,
      );
      wake = () => {
        if (!loaded.has(loaderId)) return;
        clearTimeout(timer);
        resolve();
      };
      // The page was closed mid-load (a client closed it): no load will ever come.
      offDetach = cdp.on('Target.detachedFromTarget', (event) => {
        if (event.sessionId !== sessionId) return;
        clearTimeout(timer);
        reject(new CdpClosedError('the page was closed while loading'));
      });
    });
  } finally {
    off();
    offDetach();
  }
}

async function executeCode(page: Page, code: string): Promise<unknown> {
  let value: unknown;
  try {
    value = await evaluate(page, code);
  } catch (error) {
    // People write function bodies (`return document.title`): run those as one.
    if (!(error instanceof PageScriptError) || !/Illegal return statement/.test(error.message)) {
      throw error;
    }
    value = await evaluate(page, `(async () => {\n${code}\n})()`);
  }
  // JSON has no `undefined`: a script without a value answers null.
  return value === undefined ? null : value;
}

/** A real mouse click at the centre of the element, scrolled into view first. */
async function click(page: Page, selector: string): Promise<void> {
  try {
    const objectId = await querySelector(page, selector);
    await page.send('DOM.scrollIntoViewIfNeeded', { objectId });
    const { quads } = await page.send('DOM.getContentQuads', { objectId }).catch((error) => {
      if (!(error instanceof CdpProtocolError)) throw error;
      return { quads: [] as number[][] };
    });
    const quad = quads[0];
    if (!quad) throw new SelectorNotFoundError(`selector "${selector}" matches no visible element`);
    // Centre of the quad's four corners, in viewport CSS pixels (what Input expects).
    const x = (quad[0]! + quad[2]! + quad[4]! + quad[6]!) / 4;
    const y = (quad[1]! + quad[3]! + quad[5]! + quad[7]!) / 4;
    await page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
    const press = { x, y, button: 'left', buttons: 1, clickCount: 1 } as const;
    await page.send('Input.dispatchMouseEvent', { type: 'mousePressed', ...press });
    await page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', ...press, buttons: 0 });
  } finally {
    void page.send('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP }).catch(() => {});
  }
}

/** Focuses the element (caret at the end) and inserts the text as typing would. */
async function type(page: Page, selector: string, text: string): Promise<void> {
  try {
    const objectId = await querySelector(page, selector);
    await page.send('DOM.scrollIntoViewIfNeeded', { objectId }).catch((error) => {
      if (!(error instanceof CdpProtocolError)) throw error;
    });
    const { result } = await page.send('Runtime.callFunctionOn', {
      objectId,
      functionDeclaration: FOCUS_FUNCTION,
      returnByValue: true,
    });
    if (result.value !== true) {
      throw new SelectorNotFoundError(
        `selector "${selector}" matches an element that cannot take focus`,
      );
    }
    // insertText goes through the editing pipeline: input events fire as for real typing.
    await page.send('Input.insertText', { text });
  } finally {
    void page.send('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP }).catch(() => {});
  }
}

async function evaluate(page: Page, expression: string): Promise<unknown> {
  const { result, exceptionDetails } = await page.send('Runtime.evaluate', {
    expression,
    returnByValue: true,
    awaitPromise: true,
    userGesture: true,
  });
  if (exceptionDetails) throw new PageScriptError(exceptionText(exceptionDetails));
  return result.value;
}

/** The element's remote object id; SelectorNotFoundError when nothing (valid) matches. */
async function querySelector(page: Page, selector: string): Promise<string> {
  const { result, exceptionDetails } = await page.send('Runtime.evaluate', {
    expression: `document.querySelector(${JSON.stringify(selector)})`,
    objectGroup: OBJECT_GROUP,
  });
  if (exceptionDetails)
    throw new SelectorNotFoundError(`"${selector}" is not a valid CSS selector`);
  if (!result.objectId)
    throw new SelectorNotFoundError(`no element matches selector "${selector}"`);
  return result.objectId;
}

function exceptionText(details: Protocol.Runtime.ExceptionDetails): string {
  return (
    details.exception?.description ??
    (details.exception?.value !== undefined
      ? `Uncaught ${String(details.exception.value)}`
      : undefined) ??
    details.text ??
    'script failed'
  );
}
