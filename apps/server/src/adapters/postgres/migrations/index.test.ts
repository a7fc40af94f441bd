import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS } from './index.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Each released migration as it was released: its version, its name and the SHA-256 of its SQL.
 * A PostgreSQL store that ran a migration never runs it again, so an edit to a released one would
 * reach new stores only, and the two would differ without a word: a change to the schema is a new
 * migration, in a new file, added here with its hash once it is released.
 */
const RELEASED: readonly (readonly [number, string, string])[] = [
  [1, 'plants, plant id counter and tokens', '71aa5531fc6b71daf9e541615ba6d9030dc2fabba56696a45abd5ad5c6ecc742'],
  [
    2,
    'gap cursor for server-assigned ids past 2^53-1',
    'd38f310669275b66bdcda1360b3ce76ff1224dcd6cc726f9e2ae3b9d0a8cc47b',
  ],
  [
    3,
    'idempotency keys, and one function for every batch of writes',
    'dcbf4fa571e1ec0459b2e2598999341edf79eb3deb29c8311a23742fd9f33a64',
  ],
  [
    4,
    'webhook endpoints, deliveries and attempts; the outbox in plant_store_write',
    'd109ca560351eb39b89e1dd2f86777cca1a720cf628af1188963d17c01cd61d6',
  ],
  [
    5,
    'plant versions, the tag index, and updates and conditions in plant_store_write_v2',
    '3723baae1110291066b7bcc13aa7eaf37d163bdfc58ddb2c8a775ade82c35e41',
  ],
  [
    6,
    'folded names, the name order and the search index; plant_store_write_v2 writes folded names',
    '480d1d5a432685fed21adba3a2fed88fe6eb5a3998a20b8c3c765a4a364e5734',
  ],
  [
    7,
    'the trace context of each event, for its deliveries',
    'bbcdd2e2abb5104400ba85b61f27f857ab2078fec1041eaeed26db5cd1572210',
  ],
  [8, 'the change log', '2f444447aaf10db6d856b1683d82beffb6d27f5b4fc823bd89c154a24aa26a53'],
];

describe('POSTGRES_MIGRATIONS', () => {
  it('lists the migrations in version order, from 1, without a gap', () => {
    const newest = Math.max(...POSTGRES_MIGRATIONS.map((m) => m.version));
    expect(POSTGRES_MIGRATIONS.map((m) => m.version)).toEqual(Array.from({ length: newest }, (_, i) => i + 1));
  });

  it('keeps every released migration byte for byte', () => {
    const released = POSTGRES_MIGRATIONS.slice(0, RELEASED.length).map((m) => [m.version, m.name, sha256(m.sql)]);
    expect(released).toEqual(RELEASED);
  });
});
