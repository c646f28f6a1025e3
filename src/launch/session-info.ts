/**
 * What `sessionOf(browser)` returns. The live view URL, debugger address and resolved config
 * come from `GET /sessions/{id}/connection`; when that lookup failed, reading one of them
 * fetches it again (in the background: the next read has it, or `await info.refresh()`), and
 * each failure is said on the `remote-browser:launch` debug channel.
 */
import type { BrowserApi, SessionConnection } from '../browser-api/index.js';
import { createDebug } from '../http/debug.js';
import { INSPECT_CUSTOM, nodeUtil } from '../http/node-builtins.js';
import { redact } from '../http/redact.js';
import type { SessionEnd } from './end-reason.js';

const debug = createDebug('launch');
/** One `GET /sessions/{id}/connection` (live view URL, debugger address), in ms. */
const CONNECTION_LOOKUP_TIMEOUT_MS = 15_000;

/**
 * What `sessionOf(browser)` returns. Holds no secret: the cdp_url stays inside, and the live view
 * URL's token prints as `[REDACTED]` under `util.inspect` and `JSON.stringify`.
 */
export interface RemoteSessionInfo {
  id: string;
  /** Opens in any browser tab to watch the session live. Undefined until the connection lookup succeeds. */
  readonly liveViewUrl: string | undefined;
  /** Host:port for remote-debugging clients. Treat it as a capability: anyone who can reach it controls the browser. */
  readonly debuggerAddress: string | undefined;
  /** The targeting the service resolved for this session (empty until the connection lookup succeeds). */
  readonly config: Record<string, unknown>;
  /** Looks the connection up again if it is still unknown; resolves when that is done. */
  refresh(): Promise<void>;
  /**
   * Why the session went away without this browser's close(), once known: a dropped connection
   * (kept for re-attach), a service-side end (idle timeout, maximum lifetime, deleted by another
   * client, past retention), the reconnect window passing, a failed re-attach. Undefined
   * otherwise. The same line is emitted as a `RemoteBrowserWarning` (docs/launch.md).
   */
  readonly endReason: SessionEnd | undefined;
}

/**
 * `initial` is the connection, or the first lookup still on the wire (it runs alongside the
 * CDP connect): reads meanwhile start no second lookup, and refresh() waits for it first.
 */
export function sessionInfo(
  api: BrowserApi,
  id: string,
  initial: SessionConnection | Promise<SessionConnection | undefined> | undefined,
): RemoteSessionInfo {
  let connection: SessionConnection | undefined;
  let first: Promise<void> | undefined;
  if (initial instanceof Promise) {
    first = initial.then((found) => {
      connection = found;
      first = undefined;
    });
  } else {
    connection = initial;
  }
  let pending: Promise<void> | undefined;
  const lookAgain = (): Promise<void> => {
    if (connection) return Promise.resolve();
    pending ??= api.sessions
      .connection(id, { timeout: CONNECTION_LOOKUP_TIMEOUT_MS })
      .then(
        (found) => {
          connection = found;
        },
        (error: unknown) =>
          debug(
            `session ${id}: GET /sessions/${id}/connection failed again (${(error as Error).message}); liveViewUrl and debuggerAddress stay unknown`,
          ),
      )
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  const refresh = async (): Promise<void> => {
    if (first) await first;
    await lookAgain();
  };
  const read = <T>(pick: (c: SessionConnection) => T): T | undefined => {
    if (!connection && !first) void lookAgain();
    return connection ? pick(connection) : undefined;
  };
  const info: RemoteSessionInfo = {
    id,
    get liveViewUrl() {
      return read((c) => c.live_view_url);
    },
    get debuggerAddress() {
      return read((c) => c.debugger_address);
    },
    get config() {
      return (read((c) => c.config) ?? {}) as Record<string, unknown>;
    },
    refresh,
    // Set by the launch when the session goes away without close() (open-session.ts).
    endReason: undefined,
  };
  // The live view URL is a capability (its `token`): readable, but printed redacted.
  const printable = () => ({
    id,
    liveViewUrl: info.liveViewUrl === undefined ? undefined : redact(info.liveViewUrl),
    debuggerAddress: info.debuggerAddress,
    config: info.config,
  });
  return Object.defineProperties(info, {
    toJSON: { value: printable, enumerable: false },
    [INSPECT_CUSTOM]: {
      value: (_depth: number, options: object, inspectFn = nodeUtil().inspect) =>
        inspectFn(printable(), options),
      enumerable: false,
    },
  });
}

/** The first lookup, alongside the launch: a failure is reported, never thrown. */
export function lookUpConnection(
  api: BrowserApi,
  id: string,
): Promise<SessionConnection | undefined> {
  return api.sessions
    .connection(id, { timeout: CONNECTION_LOOKUP_TIMEOUT_MS })
    .catch((error: unknown) => {
      debug(
        `session ${id}: GET /sessions/${id}/connection failed (${(error as Error).message}); liveViewUrl and debuggerAddress are looked up again when asked for`,
      );
      return undefined;
    });
}
