import { invalidPlant, type InvalidPlant } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * One name or value of an `application/x-www-form-urlencoded` query (WHATWG URL §5.1, as
 * `URLSearchParams` writes it): `+` is a space, `%XX` a byte, other characters stand for
 * themselves (a raw byte of the request line arrives as one Latin-1 character), and the bytes
 * must be UTF-8. Unlike `URLSearchParams`, which keeps a malformed `%` sequence as it is and
 * turns invalid UTF-8 into U+FFFD, either is a problem here: the caller gets what it sent or a 400.
 */
const decodeComponent = (text: string): string | 'percent' | 'utf8' => {
  if (!/[%+\x80-\xff]/.test(text)) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25) {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return 'percent';
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === 0x2b) {
      bytes.push(0x20);
    } else if (c <= 0xff) {
      bytes.push(c);
    } else {
      // Not from a request line (Node hands it over as Latin-1): encode it as UTF-8.
      bytes.push(...Buffer.from(String.fromCharCode(c), 'utf8'));
    }
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    return 'utf8';
  }
};

/** A parsed query: each name once, as a string; a repeated name as an array of its values. */
export type FormQuery = Readonly<Record<string, string | readonly string[]>>;

const describeName = (name: string): string => (name.length > 40 ? `${name.slice(0, 40)}…` : name);

/**
 * The query string of a request (`ctx.querystring`, without `?`) as form data, strictly: a
 * member without `=` (`?tag`), invalid percent-encoding and invalid UTF-8 are 400s naming the
 * parameter. Empty members (`a=1&&b=2`) are skipped, as URLSearchParams does.
 */
export const parseFormQuery = (raw: string): E.Either<InvalidPlant, FormQuery> => {
  const query: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  const problems: string[] = [];
  if (raw === '') return E.right(query);
  for (const member of raw.split('&')) {
    if (member === '') continue;
    const eq = member.indexOf('=');
    const name = decodeComponent(eq < 0 ? member : member.slice(0, eq));
    if (name === 'percent' || name === 'utf8') {
      problems.push(
        `query parameter name: ${name === 'percent' ? 'invalid percent-encoding' : 'not valid UTF-8 once decoded'}`,
      );
      continue;
    }
    if (eq < 0) {
      problems.push(`${describeName(name)}: expected ${describeName(name)}=<value>, got the name alone`);
      continue;
    }
    const value = decodeComponent(member.slice(eq + 1));
    if (value === 'percent' || value === 'utf8') {
      problems.push(
        `${describeName(name)}: ${value === 'percent' ? 'invalid percent-encoding' : 'not valid UTF-8 once decoded'}`,
      );
      continue;
    }
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen as string, value];
  }
  return problems.length > 0 ? E.left(invalidPlant(problems.slice(0, 5))) : E.right(query);
};
