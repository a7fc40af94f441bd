import {
  CreatePlantsRequest,
  CreatePlantsResponse,
  formatErrors,
  type ChangePosition,
  type Plant,
} from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { UnexpectedResponseError, ValidationError } from './client-error.js';
import { decodeBody } from './decode-body.js';
import { changeSeqOf } from './list-page.js';
import type { CreatedPlants, CreateOptions, CreatePlantInput } from './plants-api.js';
import { failureOf, type Exchange, type Transport } from './transport.js';

/**
 * The array `createMany` resolves to, with `replayed` and `changeSeq` as non-enumerable, read-only
 * properties (as `withMetadata` adds them to objects): a deep equality sees the plants alone.
 */
const createdPlants = (
  plants: readonly Plant[],
  metadata: { readonly replayed: boolean; readonly changeSeq: ChangePosition | undefined },
): CreatedPlants => {
  const descriptors: PropertyDescriptorMap = {};
  for (const [key, value] of Object.entries(metadata))
    descriptors[key] = { value, enumerable: false, writable: false, configurable: false };
  return Object.defineProperties([...plants], descriptors) as unknown as CreatedPlants;
};

const unexpected = (exchange: Exchange, problem: string): UnexpectedResponseError =>
  new UnexpectedResponseError([problem], { ...exchange.details, status: exchange.status });

/**
 * `plants.createMany`: `POST /plants/batch` with the array, its `Idempotency-Key` over the whole
 * array (`idempotencyKey` as `create` takes it: a fresh UUIDv7 by default, `false` for none),
 * retried like `create`. Resolves to the created plants with their ids, in the order given.
 */
export const createManyWith =
  (
    send: Transport['send'],
    validate: boolean,
    idempotencyKeyOf: (option: string | false | undefined) => string | undefined,
  ) =>
  async (plants: readonly CreatePlantInput[], options?: CreateOptions): Promise<CreatedPlants> => {
    let body: unknown = plants;
    if (validate) {
      const decoded = CreatePlantsRequest.decode(plants);
      if (E.isLeft(decoded)) throw new ValidationError(formatErrors(decoded.left));
      body = CreatePlantsRequest.encode(decoded.right);
    }
    const everyId = plants.every((plant) => (plant as { id?: unknown }).id !== undefined);
    const idempotencyKey = idempotencyKeyOf(options?.idempotencyKey);
    const exchange = await send(
      {
        method: 'POST',
        path: 'plants/batch',
        body: JSON.stringify(body),
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        retryable: (policy) => idempotencyKey !== undefined || (policy.createWithId && everyId),
      },
      options,
    );
    if (exchange.status !== 201) {
      if (exchange.status >= 200 && exchange.status <= 299)
        throw unexpected(exchange, `expected HTTP 201, got ${exchange.status}`);
      throw failureOf(exchange);
    }
    const created = decodeBody(CreatePlantsResponse)(exchange.body);
    if (E.isLeft(created)) throw new UnexpectedResponseError(created.left, exchange.details);
    if (created.right.length !== plants.length)
      throw unexpected(exchange, `the 201 lists ${created.right.length} plants for ${plants.length} sent`);
    return createdPlants(created.right, { replayed: exchange.replayed, changeSeq: changeSeqOf(exchange) });
  };
