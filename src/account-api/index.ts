export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  isPaymentRequiredError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
} from '../http/errors.js';
export type { CostEstimate, LocationGroup } from './batches.js';
export { estimateCost, groupByLocation } from './batches.js';
export { AccountApi, type AccountApiOptions, type AccountRateLimits } from './client.js';
export { Notifications } from './notifications.js';
export type { WaitOptions } from './queries.js';
export { isPending, Queries, waitForResults } from './queries.js';
export type { RunManyOptions, RunManyProgress, RunManyResult } from './run-many.js';
export { RunManyError } from './run-many.js';
export type {
  Balance,
  Batch,
  CreatedWebhook,
  EventType,
  LastDelivery,
  Location,
  Notification,
  Platform,
  RawResponse,
  ResultRow,
  RowStatus,
  RunManyParams,
  SecretRotation,
  Source,
  SubmitParams,
  SubmitResponse,
  SubmittedRow,
  Webhook,
  WebhookCreateParams,
  WebhookReplaceParams,
} from './schemas.js';
export {
  AVAILABLE_PLATFORMS,
  batchSchema,
  LIMITS,
  PLATFORMS,
  submitParamsSchema,
  webhookIdOf,
} from './schemas.js';
export { SecretRing } from './secret-ring.js';
export type { WebhookVerificationReason } from './webhook-errors.js';
export { WebhookVerificationError } from './webhook-errors.js';
export { MIN_SECRET_BYTES } from './webhook-secrets.js';
export type {
  HeaderSource,
  SignedMessage,
  VerifiedWebhook,
  VerifyWebhookOptions,
  WebhookSignatureScheme,
} from './webhook-signature.js';
export { standardWebhooks, verifyWebhook } from './webhook-signature.js';
export { Webhooks } from './webhooks.js';
