import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type BrowserRuntime,
  createBrowserRuntime,
  NavigationError,
  PageScriptError,
  PageUnresponsiveError,
  SelectorNotFoundError,
} from '../../../src/emulator/runtime/index.js';
import type { RunningBrowser } from '../../../src/emulator/runtime/types.js';
import { startTestPages, type TestPages } from './test-pages.js';

describe('page actions', () => {
  let runtime: BrowserRuntime;
  let pages: TestPages;
  let browser: RunningBrowser;
  const activity = vi.fn();

  beforeAll(async () => {
    [runtime, pages] = await Promise.all([
      createBrowserRuntime({ ffmpegPath: false, actionTimeoutMs: 2_000 }),
      startTestPages(),
    ]);
    browser = await runtime.launch({
      sessionId: randomUUID(),
      record: false,
      onActivity: activity,
    });
  });
  afterAll(async () => {
    await runtime.shutdown();
    await pages.close();
  });

  it('navigates and waits for the load event, counting as activity', async () => {
    activity.mockClear();
    await browser.actions.navigate(`${pages.origin}/`);
    expect(activity).toHaveBeenCalledTimes(1);
    expect((await browser.pages())[0]).toMatchObject({
      title: 'Local test page',
      url: `${pages.origin}/`,
    });
  });

  it('rejects a navigation Chromium cannot load with its error text', async () => {
    const closedPort = await startTestPages();
    await closedPort.close();
    const failing = browser.actions.navigate(closedPort.origin);
    await expect(failing).rejects.toThrow(NavigationError);
    await expect(failing).rejects.toThrow(/net::ERR_CONNECTION_REFUSED/);
  });

  it('returns the page HTML with its doctype', async () => {
    await browser.actions.navigate(`${pages.origin}/`);
    const html = await browser.actions.content();
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<h1>Hello from 127.0.0.1</h1>');
  });

  it('takes a PNG screenshot and prints a PDF', async () => {
    const png = await browser.actions.screenshot();
    expect(png.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    const pdf = await browser.actions.pdf();
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('runs code and answers native JSON, awaiting promises', async () => {
    expect(await browser.actions.executeCode('1 + 2')).toBe(3);
    expect(await browser.actions.executeCode('({ a: [1, "two", null], b: { c: true } })')).toEqual({
      a: [1, 'two', null],
      b: { c: true },
    });
    expect(
      await browser.actions.executeCode('new Promise((r) => setTimeout(() => r(["late"]), 50))'),
    ).toEqual(['late']);
    expect(await browser.actions.executeCode('return document.title')).toBe('Local test page');
    expect(await browser.actions.executeCode('void 0')).toBeNull();
  });

  it('turns a script exception into a PageScriptError with the exception text', async () => {
    const failure = browser.actions.executeCode('throw new TypeError("nope")');
    await expect(failure).rejects.toThrow(PageScriptError);
    await expect(browser.actions.executeCode('Promise.reject(new Error("later"))')).rejects.toThrow(
      /later/,
    );
  });

  it('clicks, types and scrolls like a user', async () => {
    await browser.actions.navigate(`${pages.origin}/form`);
    await browser.actions.type('#name', 'Lovelace');
    expect(await browser.actions.executeCode('document.querySelector("#name").value')).toBe(
      'Ada Lovelace',
    );
    await browser.actions.click('#go');
    expect(await browser.actions.executeCode('document.querySelector("#out").textContent')).toBe(
      'clicked Ada Lovelace',
    );
    await browser.actions.scroll(0, 1200);
    expect(await browser.actions.executeCode('scrollY')).toBe(1200);
  });

  it('rejects a selector that matches nothing with SelectorNotFoundError', async () => {
    await expect(browser.actions.click('#missing')).rejects.toThrow(SelectorNotFoundError);
    await expect(browser.actions.type('#missing', 'x')).rejects.toThrow(SelectorNotFoundError);
    await expect(browser.actions.click('##bad')).rejects.toThrow(SelectorNotFoundError);
  });

  it('opens a page when the session has none left', async () => {
    const closed = await runtime.launch({ sessionId: randomUUID(), record: false });
    try {
      await closed.actions.executeCode('window.close()');
      await vi.waitFor(async () => expect(await closed.pages()).toEqual([]));
      await closed.actions.navigate(`${pages.origin}/`);
      expect(await closed.actions.executeCode('document.title')).toBe('Local test page');
    } finally {
      await closed.stop();
    }
  });

  // The action timeout is what ends the wait: without it this would hang until vitest's timeout.
  // How long it takes is not asserted here (a loaded machine stretches it); bench/ owns times.
  it('reports a hung page as PageUnresponsiveError instead of hanging', async () => {
    const hung = await runtime.launch({ sessionId: randomUUID(), record: false });
    try {
      await hung.actions.navigate(`${pages.origin}/hang`);
      await new Promise((r) => setTimeout(r, 400)); // the page starts spinning 200 ms after load
      await expect(hung.actions.executeCode('1')).rejects.toThrow(PageUnresponsiveError);
    } finally {
      await hung.stop();
    }
    expect(runtime.liveProcessCount()).toBe(1);
  });
});
