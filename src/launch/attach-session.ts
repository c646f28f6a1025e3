/**
 * Attaching to a session that already runs: connectRemote() (`adoptSession`) and the drop-ins'
 * launch, which re-attaches a session a drop-in browser of this process dropped before it
 * creates one (`launchReusing`). The kept session is taken out of its reconnect window and
 * handed to the new lease with nothing awaited between.
 */
import type { BrowserApi, SessionCreated } from '../browser-api/index.js';
import { createDebug } from '../http/debug.js';
import { redact } from '../http/redact.js';
import { describeEnd } from './end-reason.js';
import { LaunchError, messageOf } from './errors.js';
import { clientFor, launchScope, openSession, remaining } from './open-session.js';
import { leaseSession, type OpenedSession } from './opened-session.js';
import type { LaunchRemoteOptions } from './options.js';
import {
  reattachTries,
  reuseKeyOf,
  type TakenKept,
  takeKept,
  takeKeptFor,
} from './reconnect-window.js';
import { tracker } from './tracker.js';

const debug = createDebug('launch');

/**
 * Attaches to a session that already exists (connectRemote, reconnect flows). close() deletes
 * it like a launched one unless `keepSession` is set.
 */
export async function adoptSession(
  sessionId: string,
  options: LaunchRemoteOptions,
  what: string,
): Promise<OpenedSession> {
  if (typeof sessionId !== 'string' || sessionId.trim() === '')
    throw new LaunchError(`${what}: sessionId must be a non-empty string`);
  const { api, ownsApi } = await clientFor(options);
  // A session kept after a drop: out of its window now, this launch's from its lease on.
  return adopt(sessionId, takeKept(sessionId), api, ownsApi, options, what);
}

/**
 * The drop-ins' launch: first re-attaches a session that a drop-in browser of this process
 * (same account and session options: `reuseKeyOf`) dropped and that is kept in the reconnect
 * window; creates one (openSession) only when none is kept or the re-attach fails, which is
 * said (`REMOTE_BROWSER_REATTACH_FAILED`). `connect` is the adapter's; a browser it returns on
 * a created session keeps it after a drop for the next such launch (`OpenedSession.close`).
 */
export async function launchReusing<B>(
  options: LaunchRemoteOptions,
  what: string,
  connect: (opened: OpenedSession) => Promise<B>,
): Promise<B> {
  const reuseKey = reuseKeyOf(options);
  // Before a create bills a new session.
  const again =
    reuseKey === undefined
      ? undefined
      : await reattachTries(async () => {
          const kept = await reattachKept(reuseKey, options, what);
          return kept && connect(kept);
        });
  return again ?? connect(await openSession(options, what, reuseKey));
}

/**
 * A drop-in launch's re-attach: takes a session a drop-in browser of this process dropped, kept
 * under `reuseKey` (reconnect-window.ts), and attaches to it like connectRemote(). Undefined
 * when none is kept. Rejects when the re-attach failed: the session is then said and ended.
 */
async function reattachKept(
  reuseKey: string,
  options: LaunchRemoteOptions,
  what: string,
): Promise<OpenedSession | undefined> {
  const previous = await takeKeptFor(reuseKey);
  if (!previous) return undefined;
  let client: { api: BrowserApi; ownsApi: boolean };
  try {
    client = await clientFor(options);
  } catch (error) {
    await failReattach(previous, error);
    throw error;
  }
  const opened = await adopt(
    previous.id,
    previous,
    client.api,
    client.ownsApi,
    options,
    what,
    reuseKey,
  );
  debug(
    `${what}: re-attached session ${previous.id} after its connection dropped, instead of creating a new one (${++tracker.reattachedByLaunch} in this process)`,
  );
  return opened;
}

async function adopt(
  sessionId: string,
  previous: TakenKept | undefined,
  api: BrowserApi,
  ownsApi: boolean,
  options: LaunchRemoteOptions,
  what: string,
  reuseKey?: string,
): Promise<OpenedSession> {
  const scope = launchScope(options);
  try {
    const connection = await api.sessions.connection(sessionId, {
      signal: scope.signal,
      timeout: remaining(scope),
    });
    if (connection.status !== 'running' || !connection.cdp_url) {
      throw new LaunchError(`${what}: session ${sessionId} is ${connection.status}, not running`, {
        sessionId,
      });
    }
    const created = {
      id: sessionId,
      cdp_url: connection.cdp_url,
      status: 'running',
    } as SessionCreated;
    // The hand-off and the new lease with nothing awaited between: the session is never
    // uncovered, and the new lease holds the slot the launch's create took.
    const slot = previous?.handOff();
    return leaseSession({
      api,
      ownsApi,
      scope,
      created,
      connection,
      options,
      what,
      reattach: previous !== undefined,
      adopted: true,
      ...(slot ? { slot } : {}),
      ...(reuseKey !== undefined ? { reuseKey } : {}),
    });
  } catch (error) {
    scope.dispose();
    if (ownsApi) await api.close();
    if (previous) await failReattach(previous, error);
    throw error;
  }
}

/** A re-attach that failed before its lease: said the window's way, and the session ended. */
async function failReattach(previous: TakenKept, error: unknown): Promise<void> {
  previous.report(describeEnd(previous.id, 'reattach_failed', { error: redact(messageOf(error)) }));
  await previous.end().catch(() => {});
}
