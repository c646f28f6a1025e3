export { adoptSession } from './attach-session.js';
export { recordingOf, register, sessionEndOf, sessionOf } from './browser-registry.js';
export type { BudgetOptions } from './budget.js';
export { connectWithin } from './connect-within.js';
export type { SessionEnd, SessionEndReason } from './end-reason.js';
export { SESSION_WARNING_CODES } from './end-reason.js';
export { LaunchError, PreflightError, type PreflightIssue, ProfileLimitError } from './errors.js';
export { type ExitHookOptions, installExitHooks } from './exit-hooks.js';
export { cacheDir, ledgerPath } from './ledger.js';
export { setBudget, settleUsage, usage } from './metering.js';
export { type OpenedSession, openSession } from './open-session.js';
export type {
  ConnectOptions,
  LaunchRemoteOptions,
  ProfileSpec,
  RemoteSessionOptions,
} from './options.js';
export { checkTargeting, clearPreflightCache, preflight, preflightKey } from './preflight.js';
export { type EnsureProfileOptions, ensureProfile } from './profiles.js';
export { type ReapOptions, type ReapResult, reapSessions } from './reap.js';
export type { RecordingDownload } from './recordings.js';
export { RemoteSession } from './remote-session.js';
export type { RemoteSessionInfo } from './session-info.js';
export {
  toValidateParams,
  toWireSession,
  type WireSessionFields,
} from './to-wire.js';
export type { SessionUsage, Usage, UsageEnd, UsageTotals } from './usage.js';
export { startWatchdog, type Watchdog, type WatchdogOptions } from './watchdog.js';
