export {
  createPlantStoreClient,
  type PlantStoreClient,
  type PlantStoreClientOptions,
} from './create-plant-store-client.js';
export type {
  AllPlantsQuery,
  CreatedPlant,
  CreateOptions,
  CreatePlantInput,
  DeleteOptions,
  FetchedPlant,
  GetOptions,
  ListPlantsQuery,
  NotModified,
  PlantListPage,
  PlantsApi,
  UpdatedPlant,
  UpdateOptions,
  UpdatePlantInput,
} from './plants-api.js';
export {
  AbortError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  IdempotencyKeyReusedError,
  NotFoundError,
  PayloadTooLargeError,
  PlantStoreError,
  PreconditionFailedError,
  RateLimitedError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
  UnsupportedMediaTypeError,
  ValidationError,
  type PlantStoreErrorDetails,
  type PlantStoreErrorTag,
} from './client-error.js';
export type { PlantsTaskEither } from './fp.js';
export type { PlantStoreHooks, RequestInfo, ResponseInfo, RetryInfo } from './hooks.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';
export type { CallOptions } from './transport.js';
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  verifyWebhook,
  verifyWebhookEither,
  WebhookVerificationError,
  type VerifiedWebhook,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from './verify-webhook.js';
export type {
  ErrorBody,
  Plant,
  PlantCreatedEvent,
  PlantDeletedEvent,
  PlantId,
  PlantName,
  PlantTag,
  PlantUpdatedEvent,
  WebhookEvent,
  WebhookEventType,
  WebhookId,
  WebhookTimestamp,
} from '@plant-store/domain';
