import { randomUUID } from 'node:crypto';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The caller's `X-Request-Id` when it is acceptable, else a fresh one. Every response carries it,
 * and so does the request's log line (request-frame.ts); it is set on Node's response directly
 * (see respond.ts setHeader): the id is a UUID or matched `acceptable`.
 */
export const chooseRequestId = (given: string | string[] | undefined): string =>
  typeof given === 'string' && acceptable.test(given) ? given : randomUUID();
