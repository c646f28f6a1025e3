/**
 * The CDP side of `geo` (issue 35): the commands that make one target report the exit's time
 * zone, locale/languages/`Accept-Language` and position, and their application on the
 * browser-level session to the targets no library session of ours reaches.
 *
 * Overrides live with the CDP session that set them (Chromium drops them when it detaches), and
 * a target takes one time zone and one locale override at a time ("already in effect" for a
 * second session). So where a library's own session for a target can carry them (Puppeteer's,
 * src/puppeteer/geo.ts), they go there, and a later `page.emulateTimezone()` of the user simply
 * replaces them; here, a session of our own per target is held for the targets of the contexts
 * the caller names (Playwright's default context, whose sessions Playwright does not lend), and
 * for the workers a library lets go (Puppeteer detaches from service workers).
 */
import type { Protocol } from 'devtools-protocol';
import { createDebug } from '../http/debug.js';
import type { CdpCall } from './cdp-channel.js';
import type { ResolvedGeo } from './geo-resolve.js';
import type { RemoteCdp, RemoteTarget } from './remote-cdp.js';
import type { TargetSession } from './target-session.js';

const debug = createDebug('geo');

/** A field the user set on a context or page: geo leaves it to them. */
export type GeoField = 'timezoneId' | 'locale' | 'geolocation';

/** Targets that run scripts: each gets the overrides on its own session. */
const SCRIPT_TARGETS = new Set(['page', 'iframe', 'worker', 'shared_worker', 'service_worker']);

/** Targets with a document: only they serve `navigator.geolocation`. */
const DOCUMENT_TARGETS = new Set(['page', 'iframe']);

/**
 * The commands for one target of `type`, without the fields in `own`. Sent in this order before
 * the target runs its first script (or, for a target already running, before the next document).
 */
export function geoCommands(
  geo: ResolvedGeo,
  type: string,
  own: ReadonlySet<GeoField> = new Set(),
): CdpCall[] {
  if (!SCRIPT_TARGETS.has(type)) return [];
  const commands: CdpCall[] = [];
  if (geo.timezoneId && !own.has('timezoneId')) {
    commands.push({
      method: 'Emulation.setTimezoneOverride',
      params: { timezoneId: geo.timezoneId },
    });
  }
  if (geo.locale && !own.has('locale')) {
    commands.push({ method: 'Emulation.setLocaleOverride', params: { locale: geo.locale } });
    // An empty userAgent keeps the browser's own; acceptLanguage sets the header and
    // navigator.language(s) (as Playwright's `locale` does). Chromium adds the q-values itself.
    commands.push({
      method: 'Emulation.setUserAgentOverride',
      params: { userAgent: '', acceptLanguage: (geo.languages ?? [geo.locale]).join(',') },
    });
  }
  if (geo.geolocation && !own.has('geolocation') && DOCUMENT_TARGETS.has(type)) {
    commands.push({ method: 'Emulation.setGeolocationOverride', params: { ...geo.geolocation } });
  }
  return commands;
}

/** Something that sends CDP commands on one target's session. */
export interface CommandSink {
  send(method: string, params?: object): Promise<unknown>;
}

/**
 * Sends `commands` on `session` without waiting for the answers: they leave before whatever the
 * caller sends next on the same connection (a library's `Runtime.runIfWaitingForDebugger`, a
 * user's `page.goto`), so no round trip is added. A refusal (a target that does not take one of
 * them, or closed meanwhile) is said on the debug channel.
 */
export function sendGeo(session: CommandSink, commands: readonly CdpCall[]): Promise<void> {
  return Promise.all(
    commands.map((c) =>
      session.send(c.method, c.params).catch((error: unknown) => {
        debug(`${c.method} refused: ${(error as Error).message}`);
      }),
    ),
  ).then(() => {});
}

/** Commands to a child of `parent` (non-flat: wrapped in the parent's sendMessageToTarget). */
function childSink(parent: TargetSession, sessionId: string): CommandSink {
  let next = 0;
  return {
    send: (method, params = {}) =>
      parent.send('Target.sendMessageToTarget', {
        sessionId,
        message: JSON.stringify({ id: ++next, method, params }),
      }),
  };
}

/** The targets a tab's flat auto-attach reports: its workers and service workers, no frames. */
const WORKERS_ONLY: Protocol.Target.TargetFilter = [
  { type: 'worker' },
  { type: 'service_worker' },
  { exclude: true },
];

/**
 * Holds the workers and service workers of the tabs `hold(targetId)` names, each one held by
 * Chromium until it has its overrides: `Target.autoAttachRelated` with `waitForDebuggerOnStart` on
 * the browser-level session attaches each one flat, paused; the overrides and then
 * `Runtime.runIfWaitingForDebugger` go out on that flat session in one write. Measured (Chromium
 * 156, Playwright's default context): a worker does not start before every FLAT auto-attacher
 * that holds it resumed it, so this holds even when Playwright's own session resumes it first;
 * a non-flat auto-attach (`Target.setAutoAttach` with `flatten: false`) holds nothing once
 * Playwright resumed the worker, whose first script then read `en-US` whenever our overrides were
 * later than Playwright's resume. `hold()` is sent without waiting for its answer (no round trip),
 * and again for the same tab after a reopened connection, which forgets it. One listener takes
 * every held tab's workers, each with the fields its own context leaves to geo.
 */
function workerHold(
  cdp: RemoteCdp,
  geo: ResolvedGeo,
  options: TargetGeoOptions,
): { hold(targetId: string): void; release(): Promise<void> } {
  const held = new Set<TargetSession>();
  const stopAttached = cdp.on('Target.attachedToTarget', (e) => {
    // On our own connection this auto-attach holds workers; our explicit attaches hold nothing,
    // and pages are held by page-hold.ts.
    if (!e.waitingForDebugger || e.targetInfo.type === 'page') return;
    // A session of ours like any other: it ends when the worker goes or the connection drops.
    const session = cdp.adoptFlat(e.sessionId, e.targetInfo.targetId);
    held.add(session);
    void session.closed.then(() => held.delete(session));
    void sendGeo(session, [
      ...geoCommands(geo, e.targetInfo.type, options.own?.(e.targetInfo)),
      { method: 'Runtime.runIfWaitingForDebugger' },
    ]);
  });
  return {
    hold: (targetId) =>
      void sendGeo(cdp, [
        {
          method: 'Target.autoAttachRelated',
          params: { targetId, waitForDebuggerOnStart: true, filter: WORKERS_ONLY },
        },
      ]),
    release: async () => {
      stopAttached();
      const sessions = [...held];
      held.clear();
      await Promise.all(sessions.map((session) => session.detach()));
    },
  };
}

export interface TargetGeoOptions {
  /** Whether geo covers this target here (its context, its type). */
  covers(target: RemoteTarget): boolean;
  /** Fields the user set for the target's context: left alone. Default: none. */
  own?(target: RemoteTarget): ReadonlySet<GeoField>;
}

/**
 * Holds a session of our own on every covered target of the browser, the ones there now and each
 * new one as it appears, with the overrides sent on it. Resolves once the targets there now have
 * theirs on the wire; the returned function detaches every session.
 */
export async function applyGeoToTargets(
  cdp: RemoteCdp,
  geo: ResolvedGeo,
  options: TargetGeoOptions,
): Promise<() => Promise<void>> {
  const sessions = new Map<string, Promise<TargetSession | undefined>>();
  /** The tabs there at start (the session's own): their workers are held, after a reopen too. */
  const ownTabs = new Set<string>();
  let workers: ReturnType<typeof workerHold> | undefined;
  let stopped = false;
  /** `atStart`: a target there when geo starts (the session's own tab), not one announced later. */
  const cover = (target: RemoteTarget, atStart = false): Promise<unknown> | undefined => {
    if (stopped || sessions.has(target.targetId) || !options.covers(target)) return undefined;
    const own = options.own?.(target);
    const commands = geoCommands(geo, target.type, own);
    if (commands.length === 0) return undefined;
    // Every target, out-of-process frames and workers included, gets a session of its own as
    // Chromium announces it, never one auto-attached through its page's session (the session's
    // own tab's workers excepted, below): a
    // Target.setAutoAttach of ours on a page while its cross-site iframe's target is being
    // attached made Chromium drop the library's (Playwright's) session of that iframe before
    // it resumed it, and the iframe never committed (the page's `load` never came).
    const { session, attached: answered } = cdp.attach(target.targetId);
    // The session's own tab also takes its workers and service workers as they are created,
    // held until they have their overrides: set long before any of its frames navigates. A page
    // announced later (a popup) is not, since its iframes are attached at that very moment.
    if (atStart && target.type === 'page') ownTabs.add(target.targetId);
    const holdWorkers = ownTabs.has(target.targetId);
    if (holdWorkers && cdp.speaksFlat) {
      workers ??= workerHold(cdp, geo, options);
      workers.hold(target.targetId);
    }
    const attached = answered.then(
      () => {
        void sendGeo(session, commands);
        // On a library's session (no flat sessions): auto-attached, not held (workerHold).
        if (holdWorkers && !cdp.speaksFlat) {
          session.on('Target.attachedToTarget', (child) => {
            void sendGeo(
              childSink(session, child.sessionId),
              geoCommands(geo, child.targetInfo.type, own),
            );
          });
          void sendGeo(session, [
            {
              method: 'Target.setAutoAttach',
              params: { autoAttach: true, waitForDebuggerOnStart: false, flatten: false },
            },
          ]);
        }
        return session;
      },
      (error: unknown) => {
        debug(`${target.type} ${target.url}: not attached: ${(error as Error).message}`);
        return undefined;
      },
    );
    sessions.set(target.targetId, attached);
    // Ended without the target (a reopened connection): its next `targetCreated` covers it again.
    void session.closed.then(() => {
      if (sessions.get(target.targetId) === attached) sessions.delete(target.targetId);
    });
    return attached;
  };
  const stopCreated = cdp.on('Target.targetCreated', (e: { targetInfo: RemoteTarget }) => {
    void cover(e.targetInfo);
  });
  const stopDestroyed = cdp.on('Target.targetDestroyed', (e: { targetId: string }) => {
    sessions.delete(e.targetId);
    ownTabs.delete(e.targetId);
  });
  await Promise.all([...cdp.targets.values()].map((target) => cover(target, true)));
  return async () => {
    stopped = true;
    stopCreated();
    stopDestroyed();
    const all = [...sessions.values()];
    sessions.clear();
    await Promise.all([...all.map(async (s) => (await s)?.detach()), workers?.release()]);
  };
}
