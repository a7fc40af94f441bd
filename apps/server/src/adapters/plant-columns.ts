import { Plant } from '@plant-store/domain';
import type { ColumnValue, PlantField } from '../ports/store-data.js';

export type { ColumnValue, PlantField } from '../ports/store-data.js';

/**
 * The plant's columns, derived from its codec (docs/explanation/storage.md, "The plant's columns").
 * Every member of `Plant` but the id is one column of `plants` and one of `plant_changes`, under
 * the member's name, in the order the codec writes the members. What stores a plant builds its
 * column lists, patch statements, trigger comparisons, row decoders and the data commands' maps
 * from this table, so that a member added to the codec either flows through or fails loudly: the
 * compiler (COLUMN_KINDS below), or `plant-columns.test.ts` and the schema tests of each store
 * (a column or a trigger comparison that a migration has not added yet).
 */

/** How a member's value is stored: text, or a whole number. */
export type ColumnKind = 'text' | 'integer';

/**
 * The only thing said about a member outside the domain: how it is stored. Typed over Plant's
 * members, so a member added to the codec does not compile until its column kind is given here.
 */
const COLUMN_KINDS: { readonly [F in PlantField]-?: ColumnKind } = {
  name: 'text',
  tag: 'text',
};

export interface PlantColumn {
  /** The member's name, which is the column's. */
  readonly field: PlantField;
  readonly kind: ColumnKind;
  /** A required member of Plant: the column is NOT NULL. */
  readonly required: boolean;
}

const RESERVED = new Set([
  ...['version', 'name_folded', 'seq', 'type', 'plant_id', 'plantId', 'at', 'left_tag', 'leftTag'],
  // the members of a PostgreSQL write's input row (write-statements.ts)
  ...[
    'i',
    'op',
    'auto',
    'owner',
    'key',
    'request',
    'if_match',
    'if_none_match',
    'folded',
    'trace_parent',
    'trace_state',
  ],
]);

const columnsOfCodec = (): readonly PlantColumn[] => {
  const members: [string, boolean][] = [
    ...Object.keys(Plant.required).map((key): [string, boolean] => [key, true]),
    ...Object.keys(Plant.optional).map((key): [string, boolean] => [key, false]),
  ];
  const fields = members.filter(([key]) => key !== 'id');
  if (members[0]?.[0] !== 'id') throw new TypeError('Plant no longer writes its id first; plant-columns.ts assumes it');
  const declared = new Set(Object.keys(COLUMN_KINDS));
  for (const [key] of fields) {
    if (!declared.has(key)) throw new TypeError(`Plant member "${key}" has no column kind in plant-columns.ts`);
    declared.delete(key);
  }
  // Names the stores already give other columns of `plants`, `plant_changes` or the data rows.
  const reserved = fields.filter(([key]) => RESERVED.has(key));
  if (reserved.length > 0)
    throw new TypeError(`Plant member(s) ${reserved.map(([k]) => k).join(', ')} would clash with a store column`);
  if (declared.size > 0)
    throw new TypeError(`plant-columns.ts names columns Plant has not: ${[...declared].join(', ')}`);
  return fields.map(([key, required]) => {
    const field = key as PlantField;
    return { field, kind: COLUMN_KINDS[field], required };
  });
};

/** The plant's columns besides the id, in the codec's member order. */
export const PLANT_COLUMNS: readonly PlantColumn[] = columnsOfCodec();

/**
 * Every member of Plant as its JSON is written, in the codec's order: the id (a whole number),
 * then PLANT_COLUMNS. What builds a plant's JSON in SQL (PostgreSQL's events) follows it.
 */
export const PLANT_MEMBERS: readonly { readonly field: string; readonly kind: ColumnKind }[] = [
  { field: 'id', kind: 'integer' },
  ...PLANT_COLUMNS,
];

/** Their names, in that order. */
export const PLANT_FIELDS: readonly PlantField[] = PLANT_COLUMNS.map((c) => c.field);

/** `a.name, a.tag` (or `name, tag` without an alias): for SELECT and INSERT column lists. */
export const plantColumnList = (alias?: string): string =>
  PLANT_FIELDS.map((f) => (alias === undefined ? f : `${alias}.${f}`)).join(', ');

/** A plant's column values, in PLANT_FIELDS order (an absent member as NULL). */
export const plantValues = (plant: Pick<Plant, PlantField>): ColumnValue[] => {
  const record = plant as unknown as Readonly<Record<string, ColumnValue | undefined>>;
  return PLANT_FIELDS.map((f) => record[f] ?? null);
};

/** A plant's columns as an object, by member name (an absent member as NULL). */
export const plantColumnsOf = (plant: Pick<Plant, PlantField>): Record<PlantField, ColumnValue> => {
  const record = plant as unknown as Readonly<Record<string, ColumnValue | undefined>>;
  const columns = {} as Record<PlantField, ColumnValue>;
  for (const f of PLANT_FIELDS) columns[f] = record[f] ?? null;
  return columns;
};

/** SQLite's type of a column kind (the tables are STRICT). */
export const sqliteType = (kind: ColumnKind): string => (kind === 'text' ? 'TEXT' : 'INTEGER');

/** PostgreSQL's type of a column kind. */
export const postgresType = (kind: ColumnKind): string => (kind === 'text' ? 'text' : 'int8');
