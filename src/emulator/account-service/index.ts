export type { AccountServiceOptions, AssistantCMode, DelaySpec } from './account-options.js';
export { DEFAULT_UNAVAILABLE_COUNTRIES, DELAY_PRESETS } from './account-options.js';
export { defaultAnswerProvider } from './answers.js';
export type { DeliveryResult, EventType } from './events.js';
export { EVENT_TYPES } from './events.js';
export { FAIL_MARKER } from './queries.js';
export type { AccountService, AccountServiceDeps } from './service.js';
export { ACCOUNT_API_PREFIX, createAccountService } from './service.js';
export { signatureHeader } from './signing.js';
export type {
  AccountClock,
  AccountDirectory,
  AccountRecord,
  AnswerProvider,
  AnswerRequest,
  Platform,
  RawResponse,
  Source,
} from './types.js';
