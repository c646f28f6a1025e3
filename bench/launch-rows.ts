/**
 * P1 and P2: what `launchRemote()` and `close()` cost over the least a hand-written script
 * does, at 0, 50 and 100 ms RTT (issue 34's three), for Playwright and Puppeteer.
 *   P1 A: `launchRemote()` until the first page is in hand;
 *      B: `POST /sessions` (fetch), `connectOverCDP`/`puppeteer.connect`, first page.
 *   P2 A: `close()` until it resolves (the session is then checked to be ended);
 *      B: one `DELETE /sessions/{id}` answered (the floor).
 * Each iteration does A and B once, alternating which goes first; the figure is the ratio of
 * the medians, with the spread of the per-pair ratios.
 * Both verdicts hold the service's part equal on both sides: each step is split, from undici's
 * diagnostics channels (the library's undici and Node's fetch both publish to them), into the
 * service's part and the client's part (the rest). The service's part of a close is its DELETE
 * headers written → answered (the emulator ends Chromium before it answers, 140–240 ms on
 * loopback, differing from one Chromium to the next); of a launch, its POST /sessions written →
 * answered (the emulator starts a Chromium before it answers, 450–900 ms on loopback). The raw
 * ratio of two independent steps mostly measures that spread (closes 0.91–1.43× at 0 ms RTT,
 * launches p25–p75 0.96–1.11× with 21 pairs); the verdict compares client part + the median
 * service part of both sides, and the row prints both figures, and for launches each side's
 * median service part, so a create the library made slower would show.
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

/**
 * When the first request of each method in the step being timed left, and when its answer's
 * headers came: the POST of a launch, the DELETE of a close.
 */
let exchanges: Record<string, { sent?: number; answered?: number }> = {};
const methodOf = (message: unknown) =>
  (message as { request?: { method?: string } }).request?.method ?? '';
const exchangeOf = (message: unknown) => {
  const method = methodOf(message);
  exchanges[method] ??= {};
  return exchanges[method];
};
// When its headers are written, not when the request is created: a new connection's handshake
// is then the client's part, not the service's.
subscribe('undici:client:sendHeaders', (m) => {
  exchangeOf(m).sent ??= performance.now();
});
subscribe('undici:request:headers', (m) => {
  exchangeOf(m).answered ??= performance.now();
});

/**
 * Times one step, and the service's part of it: its `method` request sent → answered (for a
 * create, the emulator starts Chromium before it answers; for a delete, it ends it).
 */
async function timedStep<T>(
  method: 'POST' | 'DELETE',
  step: () => Promise<T>,
): Promise<{ ms: number; service: number; value: T }> {
  exchanges = {};
  const { ms, value } = await timed(step);
  const { sent, answered } = exchanges[method] ?? {};
  exchanges = {};
  return {
    ms,
    value,
    service: sent !== undefined && answered !== undefined ? answered - sent : Number.NaN,
  };
}

const timedClose = async (close: () => Promise<unknown>) => {
  const { ms, service } = await timedStep('DELETE', close);
  return { ms, service };
};

/** One launch-and-close through one library, each side timed. */
interface Side {
  launch(): Promise<{
    ms: number;
    /** The service's part of the launch: its POST /sessions sent → answered. */
    service: number;
    finish: () => Promise<{ ms: number; service: number; id: string }>;
  }>;
}

/** A session's targeting on both sides (`--target de/be/berlin`): geo then derives overrides. */
export interface Target {
  country: string;
  region?: string;
  city?: string;
}

function credentials(emu: EmulatorHandle, target: Target | undefined) {
  const base = { baseUrl: emu.url, token: emu.token, proxyPassword: emu.proxyPassword };
  // Preflight off when targeted: the hand-written side validates nothing either, and the row
  // is about what the connect and its set-up (geo's overrides included) cost.
  return target ? { ...base, ...target, preflight: false } : base;
}

async function createByHand(
  emu: EmulatorHandle,
  target: Target | undefined,
): Promise<{ id: string; cdp_url: string }> {
  const res = await fetch(`${emu.url}${API}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ proxy_password: emu.proxyPassword, ...target }),
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

function sides(
  emu: EmulatorHandle,
  library: 'playwright' | 'puppeteer',
  target: Target | undefined,
): { a: Side; b: Side } {
  if (library === 'playwright') {
    return {
      a: {
        async launch() {
          const {
            ms,
            service,
            value: browser,
          } = await timedStep('POST', async () => {
            const browser = await launchPlaywright(credentials(emu, target));
            browser.contexts()[0]?.pages()[0];
            return browser;
          });
          const id = sessionOf(browser)?.id ?? '';
          return {
            ms,
            service,
            finish: async () => ({ ...(await timedClose(() => browser.close())), id }),
          };
        },
      },
      b: {
        async launch() {
          const { ms, service, value } = await timedStep('POST', async () => {
            const session = await createByHand(emu, target);
            const browser = await chromium.connectOverCDP(session.cdp_url);
            browser.contexts()[0]?.pages()[0];
            return { session, browser };
          });
          return {
            ms,
            service,
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
        const {
          ms,
          service,
          value: browser,
        } = await timedStep('POST', async () => {
          const browser = await launchPuppeteer(credentials(emu, target));
          await browser.pages();
          return browser;
        });
        const id = sessionOf(browser as never)?.id ?? '';
        return {
          ms,
          service,
          finish: async () => ({ ...(await timedClose(() => browser.close())), id }),
        };
      },
    },
    b: {
      async launch() {
        const { ms, service, value } = await timedStep('POST', async () => {
          const session = await createByHand(emu, target);
          const browser = await puppeteer.connect({
            browserWSEndpoint: session.cdp_url,
            defaultViewport: null,
          });
          await browser.pages();
          return { session, browser };
        });
        return {
          ms,
          service,
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

async function measure(
  emu: EmulatorHandle,
  library: 'playwright' | 'puppeteer',
  pairs: number,
  target: Target | undefined,
) {
  const { a, b } = sides(emu, library, target);
  const launch: Paired = { a: [], b: [], ratios: [] };
  const close: Paired = { a: [], b: [], ratios: [] };
  const closeService = { a: [] as number[], b: [] as number[] };
  const launchService = { a: [] as number[], b: [] as number[] };
  let notEnded = 0;
  const once = async (side: Side) => {
    const launched = await side.launch();
    const closed = await launched.finish();
    if (side === a && (await sessionStatus(emu, closed.id)) !== 'ended') notEnded++;
    return {
      launch: launched.ms,
      launchService: launched.service,
      close: closed.ms,
      closeService: closed.service,
    };
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
    closeService.a.push(ra.closeService);
    closeService.b.push(rb.closeService);
    launchService.a.push(ra.launchService);
    launchService.b.push(rb.launchService);
  }
  return { launch, launchService, close, closeService, notEnded };
}

/**
 * A figure with the service's part held equal: the median client part of each side (step time −
 * its request's sent → answered) plus the median service part of all steps. NaN when a step
 * published no such request (the verdict is then missed, not guessed). The medians of each
 * side's service part are returned too: a client that made the service slower (a different
 * create body, say) shows there instead of being held equal away.
 */
function heldEqual(step: Paired, service: { a: number[]; b: number[] }) {
  const serviceA = median(service.a);
  const serviceB = median(service.b);
  if (![...service.a, ...service.b].every(Number.isFinite)) {
    const nan = Number.NaN;
    return { ratio: nan, clientA: nan, clientB: nan, service: nan, serviceA, serviceB };
  }
  const clientA = median(step.a.map((ms, i) => ms - (service.a[i] ?? Number.NaN)));
  const clientB = median(step.b.map((ms, i) => ms - (service.b[i] ?? Number.NaN)));
  const both = median([...service.a, ...service.b]);
  const ratio = (clientA + both) / (clientB + both);
  return { ratio, clientA, clientB, service: both, serviceA, serviceB };
}

export async function launchRows(options: {
  pairs: number;
  rtts: number[];
  target?: Target;
}): Promise<Row[]> {
  const targeted = options.target
    ? `, targeted ${[options.target.country, options.target.region, options.target.city].filter(Boolean).join('/')} (geo derives; preflight off)`
    : '';
  const rows: Row[] = [];
  for (const rttMs of options.rtts) {
    const emu = await startEmulator({ ffmpegPath: false, network: { rttMs } });
    try {
      for (const library of ['playwright', 'puppeteer'] as const) {
        const name = library === 'playwright' ? 'Playwright' : 'Puppeteer';
        const { launch, launchService, close, closeService, notEnded } = await measure(
          emu,
          library,
          options.pairs,
          options.target,
        );
        const launchHeld = heldEqual(launch, launchService);
        const held = heldEqual(close, closeService);
        rows.push({
          id: 'P1',
          what: `${name} launchRemote() → first page vs POST + connect + first page, ${rttMs} ms RTT${targeted}`,
          goal: '≤ 1.03×',
          measured:
            `${launchHeld.ratio.toFixed(2)}× with the service's part held equal (client part ` +
            `${fmt(launchHeld.clientA)} vs ${fmt(launchHeld.clientB)} ms + service ` +
            `${fmt(launchHeld.service)} ms; its medians ${fmt(launchHeld.serviceA)} vs ` +
            `${fmt(launchHeld.serviceB)} ms); raw ${describeRatio(launch)}`,
          met: launchHeld.ratio <= 1.03,
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
