export { describeValue } from './describe-value.js';
export {
  IDEMPOTENCY_KEY_PATTERN,
  IdempotencyKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKeyField,
  type IdempotencyKeyBrand,
} from './idempotency-key.js';
export { createOpenApiDocument, DEFAULT_IDEMPOTENCY_TTL_SECONDS, openApiDocument, type OpenApiSettings } from './openapi.js';
export {
  CreatePlantRequest,
  CreatePlantResponse,
  MAX_NAME_LENGTH,
  MAX_TAG_LENGTH,
  Plant,
  PlantName,
  PlantPage,
  PlantTag,
  type PlantNameBrand,
  type PlantTagBrand,
} from './plant.js';
export {
  describePlantError,
  idTaken,
  invalidPlant,
  plantNotFound,
  type IdTaken,
  type InvalidPlant,
  type PlantError,
  type PlantNotFound,
} from './plant-error.js';
export {
  ListCursor,
  ListCursorFromString,
  MAX_PLANT_ID,
  PlantId,
  PlantIdFromPath,
  type ListCursorBrand,
  type PlantIdBrand,
} from './plant-id.js';
export { decodeWith, formatErrors } from './report.js';
export { textProblem } from './text.js';
export {
  DEFAULT_PAGE_LIMIT,
  ErrorBody,
  ListQuery,
  MAX_PAGE_LIMIT,
  PageLimit,
  PageLimitFromString,
  type ListQueryInput,
  type PageLimitBrand,
} from './wire.js';
export {
  PlantCreatedEvent,
  PlantDeletedEvent,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_ID_PATTERN,
  WEBHOOK_TIMESTAMP_PATTERN,
  WebhookEvent,
  webhookEventBody,
  WebhookEventType,
  WebhookId,
  WebhookTimestamp,
  type WebhookIdBrand,
  type WebhookTimestampBrand,
} from './webhook-event.js';
