import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every token this server issues starts with this, so that leaked ones are easy to recognise. */
export const TOKEN_PREFIX = 'pst_';

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const b64token = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Whether `s` has the syntax of a bearer token (any issuer's, JWTs included). */
export const isB64Token = (s: string): boolean => b64token.test(s);

/** A new secret: `pst_` and 43 base64url characters (256 random bits). */
export const generateToken = (): string => TOKEN_PREFIX + randomBytes(32).toString('base64url');

/** A new public token id: `tok_` and 12 hex characters; safe to print and log. */
export const generateTokenId = (): string => `tok_${randomBytes(6).toString('hex')}`;

/**
 * The SHA-256 of the token string (its UTF-8 bytes): the only form in which a token is stored.
 * One-shot `crypto.hash` (Node ≥ 20.12): half the cost of a createHash object on every request.
 */
export const hashToken = (token: string): Buffer => hash('sha256', token, 'buffer');

/** Constant-time equality of two hashes; false (without comparing) when their lengths differ. */
export const hashesEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b);
