/**
 * The wait a `Retry-After` value asks for, in milliseconds (RFC 9110 §10.2.3): either
 * delay-seconds (`120`) or an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`, also the obsolete
 * RFC 850 and asctime forms), measured from `now`. A date in the past means 0. Undefined when the
 * header is absent or malformed (a negative or fractional number, garbage).
 */
export const parseRetryAfter = (value: string | undefined, now: number = Date.now()): number | undefined => {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^[0-9]+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : Number.MAX_SAFE_INTEGER;
  }
  // An HTTP-date always names a weekday and a month, and ends in GMT (asctime has no zone).
  if (!/^[A-Za-z]{3,9}, /.test(text) && !/^[A-Za-z]{3} [A-Za-z]{3} /.test(text)) return undefined;
  const asctime = /^[A-Za-z]{3} [A-Za-z]{3} /.test(text);
  const at = Date.parse(asctime ? `${text} GMT` : text);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - now);
};
