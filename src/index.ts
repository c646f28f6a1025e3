// The root entry `remote-browser`: the BrowserApi client, its types and schemas, the public part
// of the HTTP layer, and the launch layer's library-agnostic functions (a Selenium or CDP user
// needs no browser library's entry for them). It must not load playwright-core or puppeteer-core.
export * from './browser-api/index.js';
export {
  type BudgetExceededDetails,
  BudgetExceededError,
  type BudgetLimit,
  isBudgetExceededError,
} from './http/budget-exceeded.js';
export type { CallOptions } from './http/call-options.js';
export * from './http/errors.js';
export type { RateLimiterOptions } from './http/rate-limiter.js';
export { RateLimiter } from './http/rate-limiter.js';
export { REDACTED, redact, registerSecret } from './http/redact.js';
export type { RetryOptions } from './http/retry-policy.js';
export type {
  BudgetOptions,
  ConnectOptions,
  EnsureProfileOptions,
  ExitHookOptions,
  PreflightIssue,
  ProfileSpec,
  ReapOptions,
  ReapResult,
  RecordingDownload,
  RemoteSessionInfo,
  RemoteSessionOptions,
  SessionUsage,
  Usage,
  UsageEnd,
  UsageTotals,
  Watchdog,
  WatchdogOptions,
} from './launch/index.js';
export {
  ensureProfile,
  installExitHooks,
  LaunchError,
  PreflightError,
  ProfileLimitError,
  reapSessions,
  recordingOf,
  sessionOf,
  setBudget,
  settleUsage,
  startWatchdog,
  usage,
} from './launch/index.js';
