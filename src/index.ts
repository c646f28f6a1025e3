// The root entry `remote-browser`: the BrowserApi client, its types and schemas, and the
// public part of the HTTP layer. It must not load playwright-core or puppeteer-core.
export * from './browser-api/index.js';
export type { CallOptions } from './http/call-options.js';
export * from './http/errors.js';
export type { RateLimiterOptions } from './http/rate-limiter.js';
export { RateLimiter } from './http/rate-limiter.js';
export { REDACTED, redact, registerSecret } from './http/redact.js';
export type { RetryOptions } from './http/retry-policy.js';
