import { randomBytes } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562 §5.7): 48 bits of Unix time in milliseconds, then 74 random bits. The
 * client's default `Idempotency-Key`. Time-ordered keys matter to the server: it stores keys in a
 * b-tree by (owner, key), where a key near the newest ones lands in a page the transaction writes
 * anyway, while a random key (UUIDv4) dirties a page of its own — under load several times the
 * write cost of the create itself. 122 bits of a v4 are not needed: 74 random bits per
 * millisecond per client make a collision practically impossible.
 */
export const uuidV7 = (now: number = Date.now()): string => {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
