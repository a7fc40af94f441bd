import type { RateLimitDecision, RateLimitPolicy } from '../rate-limit/rate-limiter.js';
import type { AppContext } from './context.js';
import { setHeader } from './respond.js';

/** The policy's name in both fields (an RFC 8941 string, as draft-ietf-httpapi-ratelimit-headers writes it). */
export const RATE_LIMIT_POLICY_NAME = 'default';

/** `RateLimit-Policy: "default";q=<quota>;w=<window seconds>`. */
export const rateLimitPolicyField = (policy: RateLimitPolicy): string =>
  `"${RATE_LIMIT_POLICY_NAME}";q=${policy.quota};w=${policy.windowSeconds}`;

/** `RateLimit: "default";r=<remaining>;t=<seconds until the window resets>`. */
export const rateLimitField = (remaining: number, resetSeconds: number): string =>
  `"${RATE_LIMIT_POLICY_NAME}";r=${remaining};t=${resetSeconds}`;

/**
 * The IETF RateLimit fields of one checked request (draft-ietf-httpapi-ratelimit-headers): the
 * policy always; the remaining quota and the reset unless the check could not be made (the store
 * failed, the request is served unchecked, and there is nothing true to say about what is left).
 * On a 429, `t` equals Retry-After, as the draft asks.
 */
export const setRateLimitHeaders = (ctx: AppContext, policy: RateLimitPolicy, decision: RateLimitDecision): void => {
  setHeader(ctx, 'RateLimit-Policy', rateLimitPolicyField(policy));
  if (decision.kind === 'allowed')
    setHeader(ctx, 'RateLimit', rateLimitField(decision.remaining, decision.resetSeconds));
  else if (decision.kind === 'limited') setHeader(ctx, 'RateLimit', rateLimitField(0, decision.resetSeconds));
};
