/**
 * P1 and P2: what `launchRemote()` and `close()` cost over the least a hand-written script
 * does, at 0 and 100 ms RTT, for Playwright and Puppeteer.
 *   P1 A: `launchRemote()` until the first page is in hand;
 *      B: `POST /sessions` (fetch), `connectOverCDP`/`puppeteer.connect`, first page.
 *   P2 A: `close()` until it resolves (the session is then checked to be ended);
 *      B: one `DELETE /sessions/{id}` answered (the floor).
 * Each iteration does A and B once, alternating which goes first; the figure is the ratio of
 * the medians, with the spread of the per-pair ratios.
 * P2's verdict holds the service's part equal on both sides: each close is split, from undici's
 * diagnostics channels (the library's undici and Node's fetch both publish to them), into the
 * service's part (DELETE headers written → answered: the emulator ends Chromium before it answers, 140–240
 * ms on loopback, differing from one Chromium to the next) and the client's part (the rest).
 * The raw ratio of two independent closes mostly measures that spread (0.91–1.43× at 0 ms RTT);
 * the verdict compares client part + the median service part of both sides, and the row prints
 * both figures.
 */
import { subscribe } from 'node:diagnostics_channel';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { type EmulatorHandle, startEmulator } from '../src/emulator/index.js';
import { launchRemote as launchPlaywright, sessionOf } from '../src/playwright/index.js';
import { launchRemote as launchPuppeteer } from '../src/puppeteer/index.js';
import { describeRatio, fmt, median, type Paired, timed } from './stats.js';
import type { Row } from './table.js';

const API = '/api/v2/browser';

/** When the DELETE of the close being timed left and when its answer's headers came. */
let deleteTimes: { sent?: number; answered?: number } = {};
const isDelete = (message: unknown) =>
  (message as { request?: { method?: string } }).request?.method === 'DELETE';
// When its headers are written, not when the request is created: a new connection's handshake
// is then the client's part, not the service's.
subscribe('undici:client:sendHeaders', (m) => {
  if (isDelete(m)) deleteTimes.sent ??= performance.now();
});
subscribe('undici:request:headers', (m) => {
  if (isDelete(m)) deleteTimes.answered ??= performance.now();
});

/** Times one close, and the service's part of it (its DELETE sent → answered). */
async function timedClose(close: () => Promise<unknown>): Promise<{ ms: number; service: number }> {
  deleteTimes = {};
  const { ms } = await timed(close);
  const { sent, answered } = deleteTimes;
  deleteTimes = {};
  return {
    ms,
    service: sent !== undefined && answered !== undefined ? answered - sent : Number.NaN,
  };
}

/** One launch-and-close through one library, each side timed. */
interface Side {
  launch(): Promise<{
    ms: number;
    finish: () => Promise<{ ms: number; service: number; id: string }>;
  }>;
}

function credentials(emu: EmulatorHandle) {
  return { baseUrl: emu.url, token: emu.token, proxyPassword: emu.proxyPassword };
}

async function createByHand(emu: EmulatorHandle): Promise<{ id: string; cdp_url: string }> {
  const res = await fetch(`${emu.url}${API}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ proxy_password: emu.proxyPassword }),
  });
  if (!res.ok) throw new Error(`POST /sessions: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { id: string; cdp_url: string } }).data;
}

async function deleteByHand(emu: EmulatorHandle, id: string): Promise<void> {
  const res = await fetch(`${emu.url}${API}/sessions/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${emu.token}` },
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`DELETE /sessions: ${res.status}`);
}

function sides(emu: EmulatorHandle, library: 'playwright' | 'puppeteer'): { a: Side; b: Side } {
  if (library === 'playwright') {
    return {
      a: {
        async launch() {
          const { ms, value: browser } = await timed(async () => {
            const browser = await launchPlaywright(credentials(emu));
            browser.contexts()[0]?.pages()[0];
            return browser;
          });
          const id = sessionOf(browser)?.id ?? '';
          return { ms, finish: async () => ({ ...(await timedClose(() => browser.close())), id }) };
        },
      },
      b: {
        async launch() {
          const { ms, value } = await timed(async () => {
            const session = await createByHand(emu);
            const browser = await chromium.connectOverCDP(session.cdp_url);
            browser.contexts()[0]?.pages()[0];
            return { session, browser };
          });
          return {
            ms,
            finish: async () => {
              const deleted = await timedClose(() => deleteByHand(emu, value.session.id));
              await value.browser.close().catch(() => {});
              return { ...deleted, id: value.session.id };
            },
          };
        },
      },
    };
  }
  return {
    a: {
      async launch() {
        const { ms, value: browser } = await timed(async () => {
          const browser = await launchPuppeteer(credentials(emu));
          await browser.pages();
          return browser;
        });
        const id = sessionOf(browser as never)?.id ?? '';
        return { ms, finish: async () => ({ ...(await timedClose(() => browser.close())), id }) };
      },
    },
    b: {
      async launch() {
        const { ms, value } = await timed(async () => {
          const session = await createByHand(emu);
          const browser = await puppeteer.connect({
            browserWSEndpoint: session.cdp_url,
            defaultViewport: null,
          });
          await browser.pages();
          return { session, browser };
        });
        return {
          ms,
          finish: async () => {
            const deleted = await timedClose(() => deleteByHand(emu, value.session.id));
            await value.browser.disconnect().catch(() => {});
            return { ...deleted, id: value.session.id };
          },
        };
      },
    },
  };
}

async function sessionStatus(emu: EmulatorHandle, id: string): Promise<string> {
  const res = await fetch(`${emu.url}${API}/sessions/${id}`, {
    headers: { authorization: `Bearer ${emu.token}` },
  });
  return (
    ((await res.json()) as { data?: { status?: string } }).data?.status ?? `HTTP ${res.status}`
  );
}

async function measure(emu: EmulatorHandle, library: 'playwright' | 'puppeteer', pairs: number) {
  const { a, b } = sides(emu, library);
  const launch: Paired = { a: [], b: [], ratios: [] };
  const close: Paired = { a: [], b: [], ratios: [] };
  const service = { a: [] as number[], b: [] as number[] };
  let notEnded = 0;
  const once = async (side: Side) => {
    const launched = await side.launch();
    const closed = await launched.finish();
    if (side === a && (await sessionStatus(emu, closed.id)) !== 'ended') notEnded++;
    return { launch: launched.ms, close: closed.ms, service: closed.service };
  };
  // Warm-up of both paths (preflight cache, JIT, connection pools), not measured.
  await once(a);
  await once(b);
  for (let i = 0; i < pairs; i++) {
    const [first, second] = i % 2 === 0 ? [a, b] : [b, a];
    const x = await once(first);
    const y = await once(second);
    const [ra, rb] = first === a ? [x, y] : [y, x];
    launch.a.push(ra.launch);
    launch.b.push(rb.launch);
    launch.ratios.push(ra.launch / rb.launch);
    close.a.push(ra.close);
    close.b.push(rb.close);
    close.ratios.push(ra.close / rb.close);
    service.a.push(ra.service);
    service.b.push(rb.service);
  }
  return { launch, close, service, notEnded };
}

/**
 * P2's figure with the service's part held equal: the median client part of each side (close
 * time − its DELETE's sent → answered) plus the median service part of all closes. NaN when a
 * close published no DELETE (the verdict is then missed, not guessed).
 */
function heldEqual(close: Paired, service: { a: number[]; b: number[] }) {
  if (![...service.a, ...service.b].every(Number.isFinite)) {
    return { ratio: Number.NaN, clientA: Number.NaN, clientB: Number.NaN, service: Number.NaN };
  }
  const clientA = median(close.a.map((ms, i) => ms - (service.a[i] ?? Number.NaN)));
  const clientB = median(close.b.map((ms, i) => ms - (service.b[i] ?? Number.NaN)));
  const both = median([...service.a, ...service.b]);
  return { ratio: (clientA + both) / (clientB + both), clientA, clientB, service: both };
}

export async function launchRows(options: { pairs: number; rtts: number[] }): Promise<Row[]> {
  const rows: Row[] = [];
  for (const rttMs of options.rtts) {
    const emu = await startEmulator({ ffmpegPath: false, network: { rttMs } });
    try {
      for (const library of ['playwright', 'puppeteer'] as const) {
        const name = library === 'playwright' ? 'Playwright' : 'Puppeteer';
        const { launch, close, service, notEnded } = await measure(emu, library, options.pairs);
        const launchRatio = median(launch.a) / median(launch.b);
        const held = heldEqual(close, service);
        rows.push({
          id: 'P1',
          what: `${name} launchRemote() → first page vs POST + connect + first page, ${rttMs} ms RTT`,
          goal: '≤ 1.03×',
          measured: describeRatio(launch),
          met: launchRatio <= 1.03,
        });
        rows.push({
          id: 'P2',
          what: `${name} close() → session ended vs one DELETE answered, ${rttMs} ms RTT`,
          goal: '≤ 1.05×',
          measured:
            `${held.ratio.toFixed(2)}× with the service's part held equal (client part ` +
            `${fmt(held.clientA)} vs ${fmt(held.clientB)} ms + service ${fmt(held.service)} ms); ` +
            `raw ${describeRatio(close)}` +
            (notEnded > 0 ? `; ${notEnded} close() resolved before the session ended` : ''),
          met: held.ratio <= 1.05 && notEnded === 0,
        });
      }
    } finally {
      await emu.close();
    }
  }
  return rows;
}
