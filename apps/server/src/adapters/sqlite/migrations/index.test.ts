import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS } from './index.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Each released migration as it was released: its version, its name and the SHA-256 of its SQL.
 * A SQLite store that ran a migration never runs it again, so an edit to a released one would
 * reach new stores only, and the two would differ without a word: a change to the schema is a new
 * migration, in a new file, added here with its hash once it is released.
 */
const RELEASED: readonly (readonly [number, string, string])[] = [
  [1, 'plants and tokens', '9b20dbda0529b85f028c66317d7284084067d93fc29b1337c8b80ed1e00a8bda'],
  [2, 'idempotency keys', 'd6adaa89b77fb6f5cb083c3d2433f9f39a913e35a5060614122fb8ef091d9000'],
  [3, 'webhook endpoints, deliveries and attempts', 'cb022b25b3c999eb16884c4520269f57c280bf30350362442849639a570f6c4b'],
  [4, 'plant versions and the tag index', '95905952b2989a564cab9fcfd174fd1d23073d5fdb65cbb6b539a0db1e25a633'],
  [
    5,
    'folded names, the name order and the search index',
    'b95b6a8ab39bfd6883abc7241306821529782891583aa9c1205f8b1c7afbfccc',
  ],
  [
    6,
    'the trace context of each event, for its deliveries',
    '1d502d2d030165c3768c5b8037937dadb16b2a9e4885a377c4801cb80dcf9c0a',
  ],
  [7, 'the search index kept behind the writes', '7ab91bf032acc2245f861399e0ff24dd980d2ac52aa733ad08bcd3f8fb501dde'],
  [8, 'the change log', '6362382ba28d586253a83ec8314e66db8f46c0b2c2bef5db3b946d44a7f079eb'],
];

describe('SQLITE_MIGRATIONS', () => {
  it('lists the migrations in version order, from 1, without a gap', () => {
    const versions = SQLITE_MIGRATIONS.map((m) => m.version);
    expect(versions).toEqual(Array.from({ length: Math.max(...versions) }, (_, i) => i + 1));
  });

  it('keeps every released migration byte for byte', () => {
    const released = SQLITE_MIGRATIONS.slice(0, RELEASED.length).map((m) => [m.version, m.name, sha256(m.sql)]);
    expect(released).toEqual(RELEASED);
  });
});
