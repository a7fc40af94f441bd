import * as t from 'io-ts';
import { describeValue } from './describe-value.js';
import { PlantId } from './plant-id.js';
import { struct } from './struct.js';
import { textCodec } from './text.js';

export const MAX_NAME_LENGTH = 200;
export const MAX_TAG_LENGTH = 100;

export interface PlantNameBrand {
  readonly PlantName: unique symbol;
}
export interface PlantTagBrand {
  readonly PlantTag: unique symbol;
}

/** 1–200 code points, at least one non-whitespace, no control characters, well-formed Unicode. */
export const PlantName = textCodec<PlantNameBrand>('PlantName', MAX_NAME_LENGTH);
export type PlantName = t.TypeOf<typeof PlantName>;

/** 1–100 code points, with the same character rules as the name. */
export const PlantTag = textCodec<PlantTagBrand>('PlantTag', MAX_TAG_LENGTH);
export type PlantTag = t.TypeOf<typeof PlantTag>;

/** The body of `POST /plants`: name, optional tag, optional id. Any other member is rejected. */
export const CreatePlantRequest = struct(
  'CreatePlantRequest',
  { name: PlantName },
  { tag: PlantTag, id: PlantId },
  'reject',
);
export type CreatePlantRequest = t.TypeOf<typeof CreatePlantRequest>;

/** A tag, or `null`: in a merge patch, `null` removes the tag (RFC 7396). */
export const PlantTagOrNull = new t.Type<PlantTag | null, string | null, unknown>(
  'PlantTagOrNull',
  (u): u is PlantTag | null => u === null || PlantTag.is(u),
  (u, c) => {
    if (u === null) return t.success(null);
    if (typeof u !== 'string')
      return t.failure(u, c, `expected a string, or null to remove the tag, got ${describeValue(u)}`);
    return PlantTag.validate(u, c);
  },
  (tag) => tag,
);

/** `id` in a patch: never accepted; a plant keeps its id (the one in the path). */
const UnchangeableId = new t.Type<unknown, unknown, unknown>(
  'UnchangeableId',
  (_u): _u is unknown => false,
  (u, c) => t.failure(u, c, 'cannot be changed: a plant keeps its id (the one in the path)'),
  (u) => u,
);

/**
 * The body of `PATCH /plants/{id}`, a JSON Merge Patch (RFC 7396): optional `name` (replaces it),
 * optional `tag` (replaces it; `null` removes it). `{}` changes nothing. An `id`, any other member
 * or `"name": null` is rejected by name.
 */
export const UpdatePlantRequest = struct(
  'UpdatePlantRequest',
  {},
  { name: PlantName, tag: PlantTagOrNull, id: UnchangeableId },
  'reject',
);
export type UpdatePlantRequest = Omit<t.TypeOf<typeof UpdatePlantRequest>, 'id'>;

const plantRequired = { id: PlantId, name: PlantName };
const plantOptional = { tag: PlantTag };
const { id: _pathId, ...bodyRequired } = plantRequired;

/**
 * The body of `PUT /plants/{id}`: the whole plant but its id, which the path gives. Its members
 * are Plant's (so a member added to Plant is one of PUT's too); an absent optional member is
 * removed from the plant. An `id`, any other member, or `null` for a member (`"tag": null` too,
 * as on create) is rejected by name.
 */
export const ReplacePlantRequest = struct(
  'ReplacePlantRequest',
  bodyRequired,
  { ...plantOptional, id: UnchangeableId },
  'reject',
);
export type ReplacePlantRequest = Omit<t.TypeOf<typeof ReplacePlantRequest>, 'id'>;

/** The body of a 201 from `POST /plants`: name and tag, never the id (it travels in `Location`). */
export const CreatePlantResponse = struct('CreatePlantResponse', { name: PlantName }, { tag: PlantTag }, 'strip');
export type CreatePlantResponse = t.TypeOf<typeof CreatePlantResponse>;

/** A stored plant, as `GET /plants/{id}` and `GET /plants` return it. An absent tag is omitted. */
export const Plant = struct('Plant', plantRequired, plantOptional, 'strip');
export type Plant = t.TypeOf<typeof Plant>;

const requiredMembers: ReadonlyArray<readonly [string, t.Mixed]> = Object.entries(plantRequired);
const optionalMembers: ReadonlyArray<readonly [string, t.Mixed]> = Object.entries(plantOptional);

/**
 * A storage row (an absent optional member is NULL; other columns are ignored) as a Plant when
 * each of Plant's members passes its own type guard, else undefined: no validation context or
 * error arrays per row, for stores that read many (docs/explanation/performance.md, "Plant rows
 * checked by type guards first"). A row it refuses goes through `Plant` after `withoutNulls`,
 * which names what is wrong; both take their members from Plant's one declaration. `id`: the id
 * when the store keeps it apart from the row's other members (PostgreSQL's int8 arrives as text,
 * a change names it `plant_id`), instead of a copy of the row with it.
 */
export const plantOfRow = (row: Readonly<Record<string, unknown>>, id: unknown = row['id']): Plant | undefined => {
  const plant: Record<string, unknown> = {};
  for (const [key, codec] of requiredMembers) {
    const value = key === 'id' ? id : row[key];
    if (!codec.is(value)) return undefined;
    plant[key] = value;
  }
  for (const [key, codec] of optionalMembers) {
    const value = row[key];
    if (value === null || value === undefined) continue;
    if (!codec.is(value)) return undefined;
    plant[key] = value;
  }
  // Every member of Plant passed its codec's guard just above.
  return plant as Plant;
};

/** A page of `GET /plants`: plants in ascending id order. */
export const PlantPage = t.readonlyArray(Plant, 'PlantPage');
export type PlantPage = t.TypeOf<typeof PlantPage>;
