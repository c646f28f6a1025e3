export type {
  ConnectOptions,
  EnsureProfileOptions,
  ExitHookOptions,
  LaunchRemoteOptions,
  PreflightIssue,
  ProfileSpec,
  ReapOptions,
  ReapResult,
  RecordingDownload,
  RemoteSessionInfo,
  RemoteSessionOptions,
  SessionEnd,
  SessionEndReason,
  Watchdog,
  WatchdogOptions,
} from '../launch/index.js';
export {
  ensureProfile,
  installExitHooks,
  LaunchError,
  PreflightError,
  ProfileLimitError,
  reapSessions,
  recordingOf,
  SESSION_WARNING_CODES,
  sessionEndOf,
  sessionOf,
  startWatchdog,
} from '../launch/index.js';
export type {
  RemoteSessionPool,
  SessionPoolOptions,
  SessionPoolStats,
} from '../launch/pool-options.js';
export type {
  GeoCheck,
  GeoCheckItem,
  GeoCheckStatus,
} from '../remote-cdp/geo-check.js';
export type { GeoOption, GeoValues } from '../remote-cdp/geo-resolve.js';
export { DefaultPageError, defaultPage } from './default-page.js';
export type { RemoteChromium, RemoteLaunchOptions } from './drop-in.js';
export { chromium } from './drop-in.js';
export type { ExtraContextsOption, ExtraContextsPolicy } from './extra-contexts.js';
export { EXTRA_CONTEXT_WARNING_CODE, ExtraContextError } from './extra-contexts.js';
export { checkGeo } from './geo.js';
export type { PlaywrightRemoteOptions } from './launch-remote.js';
export { connectRemote, launchRemote } from './launch-remote.js';
export type { PlaywrightSessionPoolOptions } from './session-pool.js';
export { createSessionPool } from './session-pool.js';
