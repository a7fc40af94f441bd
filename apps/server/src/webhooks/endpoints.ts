import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { StoreError } from '../ports/plant-store.js';
import type { EndpointRecord, EventType, WebhookStore } from '../ports/webhook-store.js';
import { checkWebhookUrl, resolveWebhookAddress, type AddressPolicy, type LookupAll } from './address-policy.js';
import { newWebhookSecret } from './signature.js';

/** The endpoint's URL is not one webhooks may go to (scheme, credentials, a private address…). */
export interface UrlRefused {
  readonly _tag: 'UrlRefused';
  readonly reason: string;
}
const urlRefused = (reason: string): UrlRefused => ({ _tag: 'UrlRefused', reason });

/** `we_` and 16 random base64url characters: safe to print and log. */
export const newEndpointId = (): string => `we_${randomBytes(12).toString('base64url')}`;

/** Checks a URL as registration and replay do: its syntax, then every address its host resolves to. */
export const checkEndpointUrl = async (
  url: string,
  policy: AddressPolicy,
  lookup?: LookupAll,
): Promise<E.Either<UrlRefused, URL>> => {
  const parsed = checkWebhookUrl(url, policy);
  if (E.isLeft(parsed)) return E.left(urlRefused(parsed.left));
  const resolved = await resolveWebhookAddress(parsed.right, policy, lookup);
  return E.isLeft(resolved) ? E.left(urlRefused(resolved.left)) : E.right(parsed.right);
};

/** Registers an endpoint after checking its URL; the secret is returned once, here, and never again. */
export const registerEndpoint = async (
  store: WebhookStore,
  request: { readonly url: string; readonly events: readonly EventType[] | null },
  policy: AddressPolicy,
  lookup?: LookupAll,
): Promise<E.Either<UrlRefused | StoreError, { readonly endpoint: EndpointRecord; readonly secret: string }>> => {
  const checked = await checkEndpointUrl(request.url, policy, lookup);
  if (E.isLeft(checked)) return checked;
  const secret = newWebhookSecret();
  const added = await store.addEndpoint({
    id: newEndpointId(),
    url: checked.right.href,
    events: request.events,
    secret,
  })();
  return E.map((endpoint: EndpointRecord) => ({ endpoint, secret }))(added);
};
