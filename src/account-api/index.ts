export { BudgetExceededError, isBudgetExceededError } from '../http/budget-exceeded.js';
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  isApiError,
  isAuthenticationError,
  isBadRequestError,
  isNotFoundError,
  isPaymentRequiredError,
  isPermissionDeniedError,
  isRateLimitError,
  isRequestValidationError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
} from '../http/errors.js';
export type { CostEstimate, CostParams, LocationGroup } from './batches.js';
export { estimateCost, groupByLocation } from './batches.js';
export { AccountApi, type AccountApiOptions, type AccountRateLimits } from './client.js';
export { Credits } from './resources/credits.js';
export { Notifications } from './resources/notifications.js';
export { Queries, waitForResults } from './resources/queries.js';
export type {
  BatchRunner,
  RunManyOptions,
  RunManyProgress,
  RunManyResult,
} from './resources/run-many.js';
export { isRunManyError, RunManyError } from './resources/run-many.js';
export type { WaitOptions } from './resources/wait-options.js';
export { isPending } from './resources/wait-options.js';
export { Webhooks } from './resources/webhooks.js';
export type { Platform } from './schemas/limits.js';
export { AVAILABLE_PLATFORMS, LIMITS, PLATFORMS } from './schemas/limits.js';
export type { Notification } from './schemas/notifications.js';
export type {
  Balance,
  Batch,
  Location,
  RawResponse,
  ResultRow,
  RowStatus,
  RunManyParams,
  Source,
  SubmitParams,
  SubmitResponse,
  SubmittedRow,
} from './schemas/queries.js';
export {
  BatchSchema,
  batchSchema,
  SubmitParamsSchema,
  submitParamsSchema,
} from './schemas/queries.js';
export type {
  CreatedWebhook,
  EventType,
  LastDelivery,
  SecretRotation,
  Webhook,
  WebhookCreateParams,
  WebhookReplaceParams,
} from './schemas/webhooks.js';
export { webhookIdOf } from './schemas/webhooks.js';
export { SecretRing } from './secret-ring.js';
export type { WebhookVerificationReason } from './webhook-errors.js';
export { isWebhookVerificationError, WebhookVerificationError } from './webhook-errors.js';
export { MIN_SECRET_BYTES } from './webhook-secrets.js';
export type {
  HeaderSource,
  SignedMessage,
  VerifiedWebhook,
  VerifyWebhookOptions,
  WebhookSignatureScheme,
} from './webhook-signature.js';
export { standardWebhooks, verifyWebhook } from './webhook-signature.js';
