export {
  Change,
  changeBody,
  ChangePage,
  ChangePosition,
  ChangePositionFromString,
  ChangeSeq,
  ChangesQuery,
  CHANGE_ETAG_PATTERN,
  MAX_CHANGES_WAIT_SECONDS,
  PlantCreatedChange,
  PlantDeletedChange,
  PlantLeftChange,
  PlantUpdatedChange,
  type ChangePositionBrand,
  type ChangeSeqBrand,
} from './change.js';
export { describeValue } from './describe-value.js';
export { jsonLines } from './json-lines.js';
export {
  IDEMPOTENCY_KEY_PATTERN,
  IdempotencyKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKeyField,
  type IdempotencyKeyBrand,
} from './idempotency-key.js';
export {
  createOpenApiDocument,
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
  ENTITY_TAG_LIST_PATTERN,
  openApiDocument,
  type OpenApiSettings,
} from './openapi.js';
export {
  CreatePlantRequest,
  CreatePlantResponse,
  MAX_NAME_LENGTH,
  MAX_TAG_LENGTH,
  Plant,
  PlantName,
  PlantPage,
  PlantTag,
  PlantTagOrNull,
  plantOfRow,
  ReplacePlantRequest,
  UpdatePlantRequest,
  type PlantNameBrand,
  type PlantTagBrand,
} from './plant.js';
export { CreatePlantsRequest, CreatePlantsResponse, MAX_BATCH_PLANTS } from './plant-batch.js';
export {
  describePlantError,
  idTaken,
  invalidPlant,
  plantNotFound,
  preconditionFailed,
  type IdTaken,
  type InvalidPlant,
  type PlantError,
  type PlantNotFound,
  type PreconditionFailed,
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
export { hasPreference } from './prefer.js';
export { decodeWith, formatErrors } from './report.js';
export {
  compareCodePoints,
  fold,
  isNameSort,
  MAX_PAGE_CURSOR_LENGTH,
  MAX_SEARCH_LENGTH,
  PAGE_CURSOR_PATTERN,
  PageCursor,
  PageCursorFromString,
  PLANT_SORTS,
  PlantSort,
  SearchText,
  type PageCursorBrand,
  type SearchTextBrand,
} from './search.js';
export { StructType } from './struct.js';
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
  PlantUpdatedEvent,
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
export { withoutNulls, type WithoutNulls } from './without-nulls.js';
