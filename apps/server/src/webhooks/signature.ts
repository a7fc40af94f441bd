import { createHmac, randomBytes } from 'node:crypto';

const prefix = 'whsec_';
/** Canonical padded base64: what `Buffer.toString('base64')` writes. */
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `whsec_` + base64 of 32 random bytes (node:crypto). */
export const newWebhookSecret = (): string => `${prefix}${randomBytes(32).toString('base64')}`;

/**
 * The secret's key bytes (base64 after the whsec_ prefix); undefined when malformed: another
 * prefix, no key, or anything but canonical padded base64 (Buffer.from would silently skip
 * stray characters and sign with a different key).
 */
export const webhookSecretKey = (secret: string): Buffer | undefined => {
  if (!secret.startsWith(prefix)) return undefined;
  const encoded = secret.slice(prefix.length);
  if (encoded === '' || !base64.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64');
};

/**
 * `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>` for each secret, in order, space-separated (Standard Webhooks v1).
 * A malformed secret is a broken invariant (secrets are made by newWebhookSecret and kept by the
 * store): a TypeError that never shows the secret. Check stored secrets with webhookSecretKey.
 */
export const signatureHeader = (
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string => {
  if (!Number.isSafeInteger(timestampSeconds))
    throw new TypeError(`webhook timestamp must be whole Unix seconds, got ${timestampSeconds}`);
  const signed = `${id}.${timestampSeconds}.${body}`;
  return secrets
    .map((secret, i) => {
      const key = webhookSecretKey(secret);
      if (key === undefined)
        throw new TypeError(`webhook secret ${i + 1} of ${secrets.length} is malformed (expected whsec_ + base64)`);
      return `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`;
    })
    .join(' ');
};
