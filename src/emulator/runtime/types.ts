/**
 * The seam between the emulator's control plane (HTTP routes, state, clock) and its session
 * runtime (a real Chromium per session, the CDP proxy, screencast, recordings, live view).
 * The control plane only ever talks to Chromium through these interfaces.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Page } from '../../browser-api/schemas/sessions.js';
import type { DevtoolsEndpoint } from './devtools-endpoint.js';

export interface RuntimeOptions {
  /** Chromium executable; default: `CHROMIUM_PATH`, then the system Chromium, then Playwright's cache. */
  chromiumPath?: string;
  /** ffmpeg executable, or `false` to turn recordings off; default: `FFMPEG_PATH`, then `ffmpeg` on PATH. */
  ffmpegPath?: string | false;
  /** Folder for per-session temp dirs, frames and recordings; default: a new dir under os.tmpdir(). */
  workDir?: string;
  /** Timeout of one page action's CDP calls before it is reported as a 502; default 15000 ms. */
  actionTimeoutMs?: number;
  /** Frames per second of the encoded recording; default 5. */
  recordingFps?: number;
  /** How long Chromium may take to print its DevTools endpoint; default 30000 ms (ten launching at once on two cores is slow). */
  launchTimeoutMs?: number;
}

/** Who a session's exit is, as `exit.test` answers it (browser-service/exit-identity.ts makes it). */
export interface ExitIdentity {
  ip: string;
  country: string;
  region: string;
  city: string;
  zip: string;
  isp: string;
  connection_type: string;
  session_type: string;
}

export interface LaunchSpec {
  sessionId: string;
  /**
   * A persistent user-data dir (profile with store_cache); when absent a throwaway dir is used and
   * removed at stop. A given dir is kept, and stop() first closes Chromium cleanly (bounded) so
   * cookies and storage reach the disk.
   */
  userDataDir?: string;
  /** Record the session from screencast frames; ignored when recordings are unavailable. */
  record: boolean;
  /** Called for every chunk of CDP traffic through the proxy, and for each page action: the idle timer's input. */
  onActivity?: () => void;
  /**
   * Called once if Chromium exits on its own (crash, killed from outside, its sandbox's forwarder
   * gone), with the reason to log. Not called after stop().
   */
  onExit?: (reason: string) => void;
  /** The session's exit identity on its `connection`-th connection; required when sessions run sandboxed. */
  exitIdentity?: (connection: number) => ExitIdentity;
}

/** A page target, as the browser service's `/sessions/{id}/pages` answers it: the client's `Page`. */
export type PageInfo = Page;

export interface RecordingFile {
  /** Absolute path of the encoded video. */
  path: string;
  /** e.g. 'video/webm' */
  contentType: string;
  durationSeconds: number;
  sizeBytes: number;
}

/** Thrown by page actions when the browser or page does not answer in time: the routes map it to 502. */
export class PageUnresponsiveError extends Error {
  override name = 'PageUnresponsiveError';
}

/** Thrown by page actions for a selector that matches nothing: the routes map it to 400. */
export class SelectorNotFoundError extends Error {
  override name = 'SelectorNotFoundError';
}

export interface PageActions {
  navigate(url: string): Promise<void>;
  content(): Promise<string>;
  /** PNG bytes */
  screenshot(): Promise<Buffer>;
  /** Runs `code` in the page; resolves with the script's value as JSON (promises are awaited). */
  executeCode(code: string): Promise<unknown>;
  /** PDF bytes */
  pdf(): Promise<Buffer>;
  click(selector: string): Promise<void>;
  type(selector: string, text: string): Promise<void>;
  scroll(x: number, y: number): Promise<void>;
}

export interface RunningBrowser {
  readonly sessionId: string;
  /** OS pid of the Chromium browser process. */
  readonly pid: number;
  /**
   * Chromium's own remote-debugging endpoint (never handed to clients): its loopback port on
   * the shared machine, the sandbox's unix socket with `isolation: 'remote'`.
   */
  readonly chromiumAddress: DevtoolsEndpoint;
  /** Path part of Chromium's browser websocket, e.g. `/devtools/browser/<uuid>`. */
  readonly browserWsPath: string;
  readonly actions: PageActions;
  pages(): Promise<PageInfo[]>;
  /** Subscribe to live JPEG frames (for the live view); returns the unsubscribe function. */
  onFrame(listener: (jpeg: Buffer) => void): () => void;
  /** The latest frame, if any (so a new live viewer sees something at once). */
  lastFrame(): Buffer | undefined;
  /** Resolves once Chromium is gone: stopped, or exited on its own. */
  readonly ended: Promise<void>;
  /** Whether `ended` has resolved (a control plane may still hold the object). */
  hasEnded(): boolean;
  /**
   * Ends the session now: resolves as soon as Chromium (and its whole process group) is gone,
   * with the recording's frames on disk and nothing encoded, so the control plane can answer a
   * DELETE without waiting for ffmpeg. Calling it again returns the same end.
   */
  end(): Promise<EndedBrowser>;
  /** `end()`, then `recording()`: for callers that need both. */
  stop(): Promise<RecordingFile | undefined>;
}

/**
 * A session's recording after its end. Nothing is encoded until it is asked for: an encode costs
 * about a CPU-second for a few seconds of session, and most sessions' recordings are never
 * fetched. The first of `recording()` and `discard()` decides; later calls share its outcome.
 */
export interface EndedBrowser {
  /**
   * Encodes the recording from its frames: the file, or undefined when none was made, it was
   * discarded, or the encode failed (ending a session never fails because of its video). Never
   * rejects.
   */
  recording(): Promise<RecordingFile | undefined>;
  /** Removes the frames of a recording never asked for; waits for an encode already started. */
  discard(): Promise<void>;
}

export interface BrowserRuntime {
  /** Whether recordings can be made (ffmpeg found); when not, `recordingsOffReason` says why. */
  readonly recordingsAvailable: boolean;
  readonly recordingsOffReason: string | undefined;
  /** Absolute path of the Chromium executable in use. */
  readonly chromiumPath: string;
  launch(spec: LaunchSpec): Promise<RunningBrowser>;
  /** Chromium browser processes alive right now (checked against the OS, not a counter). */
  liveProcessCount(): number;
  /** Stops every browser; no Chromium process is left when this resolves. */
  shutdown(): Promise<void>;
}

/**
 * Resolves a CDP-proxy request to the session it targets. The control plane checks the access
 * token and the session's state; `undefined` means refuse (the proxy answers 401/404 without
 * echoing the token).
 */
export type CdpTargetResolver = (
  sessionId: string,
  accessToken: string | undefined,
) => RunningSession | undefined;

/** A session the control plane has running: its browser and its idle-timer input. */
export interface RunningSession {
  browser: RunningBrowser;
  onActivity: () => void;
}

/**
 * The control plane's running sessions, looked up by id alone: the one registry of sessions,
 * for what has no token to check (the debugger address, whose unguessable port is the
 * capability; the proxy telling "unknown session" (404) from "bad token" (401)).
 */
export interface SessionDirectory {
  /** The session if it is running, else undefined. */
  running(sessionId: string): RunningSession | undefined;
  /** Some running session, for answers that are the same for every session (`/json/protocol`). */
  anyRunning(): RunningSession | undefined;
}

export interface CdpProxy {
  /** Handles an HTTP upgrade if its path is a CDP-proxy path; returns false when the path is not ours. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * Handles Chrome's `/json` surface under a CDP-proxy path, and `/json/protocol` at the root
   * (where a CDP client derives it from the cdp_url); false when not ours.
   */
  handleHttp(req: IncomingMessage, res: ServerResponse): boolean;
  /** The `cdp_url` to hand out for a session: `ws://<publicHost>/...` carrying the access token. */
  cdpUrl(sessionId: string, accessToken: string): string;
  /**
   * Opens a dedicated loopback listener for one session (the `debugger_address`), serving
   * Chrome's `/json` surface and websocket upgrades for that session only.
   */
  openDebuggerAddress(sessionId: string): Promise<DebuggerAddress>;
}

/** A session's `debugger_address` listener. */
export interface DebuggerAddress {
  /** `127.0.0.1:<port>`. */
  address: string;
  /** Also answer a `Host` with this port (a latency front's, which clients reach instead). */
  acceptPort?(port: number): void;
  /** Drops its open websockets (the listener stays): the admin API's connection cut. */
  cutClients(): number;
  close(): Promise<void>;
}

/**
 * Thrown by `executeCode` when the script throws or its promise rejects; the message is the
 * page's exception text. A plain client mistake: the routes map it to 400.
 */
export class PageScriptError extends Error {
  override name = 'PageScriptError';
}

/**
 * Thrown by `navigate` when Chromium cannot load the URL (`net::ERR_CONNECTION_REFUSED`, an
 * invalid URL, ...); the message carries Chromium's error text. The routes map it to 400.
 */
export class NavigationError extends Error {
  override name = 'NavigationError';
}
