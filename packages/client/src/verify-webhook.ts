import { createHmac, timingSafeEqual } from 'node:crypto';
import { describeValue, formatErrors, WebhookEvent, WebhookId } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';

/**
 * Why a webhook was refused. Every reason but `InvalidPayload` means the request cannot be
 * trusted to come from the Plant Store server; answer it with a 4xx and do not act on it.
 *
 * - `MissingHeader`: `webhook-id`, `webhook-timestamp` or `webhook-signature` is absent or empty.
 * - `InvalidHeader`: `webhook-id` is not `msg_` + 1–64 of `A–Z a–z 0–9`, or `webhook-timestamp`
 *   is not integer Unix seconds.
 * - `TimestampTooOld` / `TimestampTooNew`: `webhook-timestamp` is further from now than the
 *   tolerance (5 minutes by default), in the past or in the future: a replayed capture, or a clock
 *   that is off.
 * - `NoMatchingSignature`: no `v1` signature in `webhook-signature` matches any of the secrets
 *   (a tampered body, id or timestamp, a wrong secret, a body that is not the raw bytes received).
 * - `InvalidPayload`: the signature is good, but the body is not UTF-8 JSON of a `WebhookEvent`
 *   this version knows — for example an event type added by a newer server. `webhookId` is set.
 */
export type WebhookVerificationReason =
  'MissingHeader' | 'InvalidHeader' | 'TimestampTooOld' | 'TimestampTooNew' | 'NoMatchingSignature' | 'InvalidPayload';

/**
 * A webhook that failed verification. Not a `PlantStoreError`: it is not the outcome of a request
 * this client made, but a verdict on one it received.
 */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;
  /** One readable line per problem (`body.data.name: required`); for `InvalidPayload` only, else empty. */
  readonly problems: readonly string[];
  /** The `webhook-id` of a correctly signed message (`InvalidPayload` only), to log or acknowledge it. */
  readonly webhookId: WebhookId | undefined;

  constructor(
    reason: WebhookVerificationReason,
    message: string,
    details: { readonly problems?: readonly string[]; readonly webhookId?: WebhookId } = {},
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
    this.problems = details.problems ?? [];
    this.webhookId = details.webhookId;
  }
}

/** A verified, decoded webhook. */
export interface VerifiedWebhook {
  /** `webhook-id`: the event's id, the same on every attempt and replay. Drop duplicates by it. */
  readonly id: WebhookId;
  /** `webhook-timestamp`: when this attempt was sent (whole seconds). The commit time is `event.timestamp`. */
  readonly sentAt: Date;
  /** The payload, decoded: `switch (event.type)` narrows `event.data`. */
  readonly event: WebhookEvent;
}

/**
 * The request headers: Node's `IncomingHttpHeaders` (`req.headers`, Koa's `ctx.headers`) or any
 * record of name → value(s), looked up case-insensitively; or a Fetch API `Headers`.
 */
export type WebhookHeaders =
  Readonly<Record<string, string | readonly string[] | undefined>> | { get(name: string): string | null };

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300 (Standard Webhooks). */
  readonly toleranceSeconds?: number;
  /** The clock; default `() => new Date()`. */
  readonly now?: () => Date;
}

export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A v1 signature: base64 of the 32 bytes of an HMAC-SHA256. */
const v1Signature = /^[A-Za-z0-9+/]{43}=$/;
const unixSeconds = /^[1-9][0-9]{0,15}$/;

/** `whsec_<base64>` or bare base64 → the key bytes. A malformed secret is a defect: TypeError. */
const decodeSecret = (secret: unknown, index: number): Buffer => {
  const what = `verifyWebhook: secret ${index + 1}`; // never the secret itself
  if (typeof secret !== 'string') throw new TypeError(`${what} is not a string`);
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === '' || !base64.test(encoded))
    throw new TypeError(`${what} is not whsec_ followed by base64 (standard alphabet, padded)`);
  return Buffer.from(encoded, 'base64');
};

const headerOf = (headers: WebhookHeaders, name: string, separator: string): string | undefined => {
  if (typeof headers.get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  return typeof value === 'string' ? value : value?.join(separator);
};

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const parsePayload = (body: string | Uint8Array): E.Either<string, unknown> => {
  let text: string;
  if (typeof body === 'string') text = body;
  else {
    try {
      text = utf8.decode(body);
    } catch {
      return E.left('the body is not valid UTF-8');
    }
  }
  try {
    return E.right(JSON.parse(text) as unknown);
  } catch (error) {
    return E.left(`the body is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
};

/** The body as a `WebhookEvent`; a failure is readable lines (`body.data.name: required`). */
const decodePayload = (body: string | Uint8Array): E.Either<readonly string[], WebhookEvent> =>
  pipe(
    parsePayload(body),
    E.mapLeft((problem): readonly string[] => [problem]),
    E.chain((json) =>
      pipe(
        WebhookEvent.decode(json),
        E.mapLeft((errors) => formatErrors(errors, 'body')),
      ),
    ),
  );

const fail = (reason: WebhookVerificationReason, message: string) =>
  E.left(new WebhookVerificationError(reason, message));

/**
 * `verifyWebhook` as an `Either`, for fp-ts callers: every verification failure is a `Left`; a
 * malformed secret or option still throws its `TypeError` (a defect, not an outcome).
 */
export const verifyWebhookEither = (
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): E.Either<WebhookVerificationError, VerifiedWebhook> => {
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).map(decodeSecret);
  if (keys.length === 0) throw new TypeError('verifyWebhook: no secret given');
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new TypeError(`verifyWebhook: toleranceSeconds must be a number ≥ 0, got ${String(tolerance)}`);
  const nowMs = (options.now ?? (() => new Date()))().getTime();
  if (!Number.isFinite(nowMs)) throw new TypeError('verifyWebhook: now() returned an invalid Date');

  const idHeader = headerOf(headers, 'webhook-id', ', ');
  const timestampHeader = headerOf(headers, 'webhook-timestamp', ', ');
  const signatureHeader = headerOf(headers, 'webhook-signature', ' ');
  for (const [name, value] of [
    ['webhook-id', idHeader],
    ['webhook-timestamp', timestampHeader],
    ['webhook-signature', signatureHeader],
  ] as const) {
    if (value === undefined || value === '') return fail('MissingHeader', `missing the ${name} header`);
  }
  const id = WebhookId.decode(idHeader);
  if (E.isLeft(id)) return fail('InvalidHeader', formatErrors(id.left, 'webhook-id').join('; '));
  const timestamp = String(timestampHeader);
  const seconds = Number(timestamp);
  if (!unixSeconds.test(timestamp) || !Number.isSafeInteger(seconds)) {
    return fail('InvalidHeader', `webhook-timestamp: expected integer Unix seconds, got ${describeValue(timestamp)}`);
  }
  const now = Math.floor(nowMs / 1000);
  if (now - seconds > tolerance)
    return fail(
      'TimestampTooOld',
      `webhook-timestamp ${timestamp} is ${now - seconds} s in the past; the tolerance is ${tolerance} s`,
    );
  if (seconds - now > tolerance)
    return fail(
      'TimestampTooNew',
      `webhook-timestamp ${timestamp} is ${seconds - now} s in the future; the tolerance is ${tolerance} s`,
    );

  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const expected = keys.map((key) =>
    createHmac('sha256', key).update(`${id.right}.${timestamp}.`).update(bytes).digest(),
  );
  const offered = String(signatureHeader)
    .split(' ')
    .filter((entry) => entry.startsWith('v1,') && v1Signature.test(entry.slice(3)))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  // Both sides are 32 bytes (an HMAC-SHA256), as timingSafeEqual requires.
  const matches = offered.some((signature) => expected.some((digest) => timingSafeEqual(signature, digest)));
  if (!matches) return fail('NoMatchingSignature', 'no v1 signature in webhook-signature matches the secret');

  const event = decodePayload(body);
  if (E.isLeft(event)) {
    return E.left(
      new WebhookVerificationError(
        'InvalidPayload',
        `the webhook ${id.right} is signed but its payload is not understood: ${event.left.join('; ')}`,
        { problems: event.left, webhookId: id.right },
      ),
    );
  }
  return E.right({ id: id.right, sentAt: new Date(seconds * 1000), event: event.right });
};

/**
 * Verifies a webhook from the Plant Store server (Standard Webhooks v1) and decodes its payload.
 *
 * - `body`: the request body exactly as received — the raw bytes (best) or their UTF-8 text;
 *   never a re-serialised parsed object.
 * - `headers`: the request headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
 * - `secrets`: the endpoint's secret `whsec_<base64>` (bare base64 is accepted too), or several
 *   during a rotation; a message signed with any of them passes.
 *
 * Checks, in order: the three headers are present; the id is `msg_…`; the timestamp is integer
 * Unix seconds within `toleranceSeconds` of `now()` either way; a `v1` signature matches a secret
 * (constant-time comparison; other versions are ignored); the body is a `WebhookEvent`. Throws
 * `WebhookVerificationError` with a `reason`, or a `TypeError` for a malformed secret or option.
 */
export const verifyWebhook = (
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): VerifiedWebhook => {
  const result = verifyWebhookEither(body, headers, secrets, options);
  if (E.isLeft(result)) throw result.left;
  return result.right;
};
