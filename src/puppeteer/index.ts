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
export type { RemotePuppeteer, RemotePuppeteerLaunchOptions } from './drop-in.js';
export { puppeteer } from './drop-in.js';
export { checkGeo } from './geo.js';
export type { PuppeteerRemoteOptions, RemoteBrowser } from './launch-remote.js';
export { connectRemote, launchRemote } from './launch-remote.js';
export type { PuppeteerSessionPoolOptions } from './session-pool.js';
export { createSessionPool } from './session-pool.js';
