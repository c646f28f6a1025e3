export { type CallOptions, callScope } from './call-options.js';
export {
  ACCOUNT_API_PATH,
  type AccountConfig,
  type AccountConfigInput,
  BROWSER_API_PATH,
  type BrowserConfig,
  type BrowserConfigInput,
  normalizeOrigin,
  resolveAccountConfig,
  resolveBrowserConfig,
} from './config.js';
export { createDebug, isDebugEnabled, setDebugSink } from './debug.js';
export { errorFromResponse, fieldErrorsOf, parseCredits } from './error-mapping.js';
export * from './errors.js';
export type { PollOptions } from './polling.js';
export { poll } from './polling.js';
export type { RateLimiterOptions } from './rate-limiter.js';
export { RateLimiter } from './rate-limiter.js';
export { clearRegisteredSecrets, REDACTED, redact, redactValue, registerSecret } from './redact.js';
export { parseRetryAfter, parseRetryAfterSeconds } from './retry-after.js';
export type { RetryOptions } from './retry-policy.js';
export { DEFAULT_RETRY, RETRYABLE_STATUSES, retryDelay } from './retry-policy.js';
export type {
  DownloadResult,
  HttpMethod,
  QueryValue,
  RequestSpec,
  StreamSpec,
  StreamToSpec,
  TransportOptions,
} from './transport.js';
export { Transport } from './transport.js';
