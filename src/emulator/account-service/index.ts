export type { AccountServiceOptions } from './account-options.js';
export { defaultAnswerProvider } from './answers.js';
export { FAIL_MARKER } from './queries.js';
export { createAccountService } from './service.js';
export { signatureHeader } from './signing.js';
export type { AccountRecord } from './types.js';
