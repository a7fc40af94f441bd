/** The contract's delays after the 1st … 7th failed attempt: 8 attempts over about 28 h. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  5_000, // 5 s
  300_000, // 5 min
  1_800_000, // 30 min
  7_200_000, // 2 h
  18_000_000, // 5 h
  36_000_000, // 10 h
  36_000_000, // 10 h
]);

/** The longest one delay may be: a WEBHOOK_RETRY_SCHEDULE step, or a Retry-After. */
export const MAX_RETRY_DELAY_MS = 86_400_000; // 24 h

const MAX_STEPS = 50;
const unitMs: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const step = /^([0-9]{1,9})(ms|s|m|h)$/;

/**
 * WEBHOOK_RETRY_SCHEDULE: 1–50 comma-separated `<integer><ms|s|m|h>` values, each ≤ 24 h. undefined when invalid.
 *
 * Decisions: each value is at least 1 ms (`0s` is refused: a retry storm, not a schedule);
 * spaces and tabs around values are allowed (`5s, 1m`), none inside one (`5 s`); units are
 * lower case; no empty values (`5s,,1m`, a trailing comma); digits only (no sign, no fraction).
 */
export const parseRetrySchedule = (text: string): readonly number[] | undefined => {
  const parts = text.split(',');
  if (parts.length > MAX_STEPS) return undefined;
  const delays: number[] = [];
  for (const part of parts) {
    const match = step.exec(part.replace(/^[ \t]+|[ \t]+$/g, ''));
    if (match === null) return undefined;
    const [, amount = '', unit = ''] = match;
    const ms = Number(amount) * (unitMs[unit] ?? Number.NaN);
    if (!(ms >= 1 && ms <= MAX_RETRY_DELAY_MS)) return undefined;
    delays.push(ms);
  }
  return Object.freeze(delays);
};

/**
 * The delay before the next attempt after `failedAttempts` failed ones (1-based: after the 1st failure → schedule[0]), times a random factor in [0.8, 1.2]; undefined when the schedule is exhausted (the delivery becomes failed). `retryAfterMs`, when given and longer than the jittered delay, replaces it.
 * Whole milliseconds. A Retry-After never extends an exhausted schedule, and is held to 24 h.
 * `failedAttempts` below 1 (or not an integer) is a broken invariant: a TypeError.
 */
export const nextAttemptDelayMs = (
  schedule: readonly number[],
  failedAttempts: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined => {
  if (!Number.isSafeInteger(failedAttempts) || failedAttempts < 1)
    throw new TypeError(`failedAttempts must be an integer ≥ 1, got ${failedAttempts}`);
  const base = schedule[failedAttempts - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (0.8 + 0.4 * Math.min(Math.max(random(), 0), 1)));
  if (retryAfterMs === undefined || !(retryAfterMs > jittered)) return jittered;
  return Math.min(Math.ceil(retryAfterMs), MAX_RETRY_DELAY_MS);
};

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const day = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const longDay = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const month = `(${months.join('|')})`;
const time = '([0-9]{2}):([0-9]{2}):([0-9]{2})';
/** RFC 9110 § 5.6.7: IMF-fixdate, and the obsolete rfc850 and asctime forms recipients must accept. */
const imfFixdate = new RegExp(`^${day}, ([0-9]{2}) ${month} ([0-9]{4}) ${time} GMT$`);
const rfc850 = new RegExp(`^${longDay}, ([0-9]{2})-${month}-([0-9]{2}) ${time} GMT$`);
const asctime = new RegExp(`^${day} ${month} ([ 0-9][0-9]) ${time} ([0-9]{4})$`);

const utc = (
  year: number,
  monthName: string,
  dayOfMonth: number,
  h: string,
  m: string,
  s: string,
): number | undefined => {
  const monthIndex = months.indexOf(monthName);
  const [hh, mm, ss] = [Number(h), Number(m), Number(s)];
  if (dayOfMonth < 1 || dayOfMonth > 31 || hh > 23 || mm > 59 || ss > 60) return undefined;
  const ms = Date.UTC(year, monthIndex, dayOfMonth, hh, mm, Math.min(ss, 59));
  // Date.UTC rolls 31 Feb over into March: refuse dates that do not exist.
  return new Date(ms).getUTCDate() === dayOfMonth ? ms : undefined;
};

const parseHttpDate = (text: string, now: Date): number | undefined => {
  let m = imfFixdate.exec(text);
  if (m !== null) return utc(Number(m[3]), m[2] ?? '', Number(m[1]), m[4] ?? '', m[5] ?? '', m[6] ?? '');
  m = rfc850.exec(text);
  if (m !== null) {
    // Two-digit years: the one not more than 50 years in the future (RFC 9110 § 5.6.7).
    const yy = Number(m[3]);
    const century = Math.floor(now.getUTCFullYear() / 100) * 100;
    const year = century + yy > now.getUTCFullYear() + 50 ? century - 100 + yy : century + yy;
    return utc(year, m[2] ?? '', Number(m[1]), m[4] ?? '', m[5] ?? '', m[6] ?? '');
  }
  m = asctime.exec(text);
  if (m !== null) return utc(Number(m[6]), m[1] ?? '', Number((m[2] ?? '').trim()), m[3] ?? '', m[4] ?? '', m[5] ?? '');
  return undefined;
};

/**
 * A Retry-After header value (delta seconds or an HTTP-date) as ms from `now`, capped at 24 h; undefined when absent/invalid/past.
 * `0` seconds is 0 (not past). An HTTP-date not after `now` is past.
 */
export const parseRetryAfter = (value: string | undefined, now: Date): number | undefined => {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Math.min(Number(text) * 1_000, MAX_RETRY_DELAY_MS);
  const at = parseHttpDate(text, now);
  if (at === undefined) return undefined;
  const delta = at - now.getTime();
  return delta > 0 ? Math.min(delta, MAX_RETRY_DELAY_MS) : undefined;
};
