import { PLANT_MEMBERS, type ColumnKind } from '../plant-columns.js';

/** A plant member as a SQL expression builds its JSON: its name and how it is stored. */
export interface JsonMember {
  readonly field: string;
  readonly kind: ColumnKind;
}

/**
 * A SQL expression for the JSON of the plant in the columns of `alias` (its `id` and a column per
 * member), byte for byte what `JSON.stringify(Plant.encode(plant))` writes: the members in the
 * codec's order, compact, an absent member (NULL) left out (`concat_ws` skips NULLs), text
 * through `to_json` (the same escapes as JSON.stringify). Generated from the members, never
 * spelled by hand: `plant-json.test.ts` (PostgreSQL) compares it with the codec's encoding.
 */
export const plantJsonSql = (alias: string, members: readonly JsonMember[] = PLANT_MEMBERS): string =>
  `'{' || concat_ws(',', ${members
    .map(({ field, kind }) =>
      kind === 'text' ? `'"${field}":' || to_json(${alias}.${field})::text` : `'"${field}":' || ${alias}.${field}`,
    )
    .join(', ')}) || '}'`;
