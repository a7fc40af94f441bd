import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describeValue } from './describe-value.js';
import { CreatePlantRequest, Plant } from './plant.js';

/** Most plants one `POST /plants/batch` may create. */
export const MAX_BATCH_PLANTS = 1000;

const isBatch = (u: unknown): u is readonly CreatePlantRequest[] =>
  Array.isArray(u) && u.length >= 1 && u.length <= MAX_BATCH_PLANTS && u.every((p) => CreatePlantRequest.is(p));

/**
 * The body of `POST /plants/batch`: a JSON array of 1–1000 plants, each with the rules of a single
 * create (`name`, optional `tag`, optional `id`). A failure names only the FIRST invalid element, in
 * array order and counted from 0, with its failing fields (`[3].name: …`); the elements after it are
 * not looked at. Whether two elements name the same id is not a matter of shape: the server decides
 * it (a 409) once every element is valid.
 */
export const CreatePlantsRequest = new t.Type<readonly CreatePlantRequest[], readonly unknown[], unknown>(
  'CreatePlantsRequest',
  isBatch,
  (u, c) => {
    if (!Array.isArray(u))
      return t.failure(u, c, `expected a JSON array of 1 to ${MAX_BATCH_PLANTS} plants, got ${describeValue(u)}`);
    if (u.length === 0) return t.failure(u, c, `expected a JSON array of 1 to ${MAX_BATCH_PLANTS} plants, got none`);
    if (u.length > MAX_BATCH_PLANTS)
      return t.failure(u, c, `expected at most ${MAX_BATCH_PLANTS} plants, got ${u.length}`);
    const plants: CreatePlantRequest[] = [];
    for (const [i, element] of (u as readonly unknown[]).entries()) {
      const decoded = CreatePlantRequest.validate(element, t.appendContext(c, String(i), CreatePlantRequest, element));
      if (E.isLeft(decoded)) return decoded;
      plants.push(decoded.right);
    }
    return t.success(plants);
  },
  (plants) => plants.map((plant) => CreatePlantRequest.encode(plant)),
);
export type CreatePlantsRequest = t.TypeOf<typeof CreatePlantsRequest>;

/** The body of a 201 from `POST /plants/batch`: the created plants, ids included, in request order. */
export const CreatePlantsResponse = t.readonlyArray(Plant, 'CreatePlantsResponse');
export type CreatePlantsResponse = t.TypeOf<typeof CreatePlantsResponse>;
