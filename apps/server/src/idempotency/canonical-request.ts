import type { CreatePlantRequest } from '@plant-store/domain';

/**
 * What makes two creates "the same request" for an idempotency key: the decoded body, so that
 * JSON values compare, not bytes (member order, whitespace, escapes and number spelling vanish
 * in parsing; the codec keeps only `id`, `name` and `tag`). Written as the JSON array
 * `[id, name, tag]` (null for an absent member), which equals another exactly when the requests
 * are equal. The store keeps it with the key, and rebuilds a replayed 201's plant from it
 * (savedCreateDecoder in adapters/store-rows.ts), so no hash is computed and nothing is stored
 * twice.
 */
export const canonicalRequest = (request: CreatePlantRequest): string =>
  JSON.stringify([request.id ?? null, request.name, request.tag ?? null]);
