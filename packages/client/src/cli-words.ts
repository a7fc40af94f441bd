/** How the `plant-store` command line spells things in a shell: words, options, the next page's command. */
import type { PlantSort } from '@plant-store/domain';
import type { NextPageQuery } from './plants-api.js';

/** `value` as one shell word (POSIX single quotes unless it is plainly safe). */
export const shellWord = (value: string): string =>
  /^[A-Za-z0-9._/:=@%+-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;

/** `--name value` as shell words; `--name=value` when the value starts with a dash, which would read as an option. */
const optionWords = (name: string, value: string): string =>
  value.startsWith('-') ? `--${name}=${shellWord(value)}` : `--${name} ${shellWord(value)}`;

/** The command that prints the page `next`. */
export const nextCommand = (next: NextPageQuery<PlantSort>): string => {
  const words = ['plant-store list', `--limit ${next.limit}`];
  if (next.sort !== undefined) words.push(`--sort ${next.sort}`);
  words.push('cursor' in next ? optionWords('cursor', next.cursor) : `--after ${next.after}`);
  if (next.q !== undefined) words.push(optionWords('q', next.q));
  if (next.tag !== undefined) words.push(optionWords('tag', next.tag));
  return words.join(' ');
};

/**
 * The arguments with `--sort -id` and `--sort -name` joined into `--sort=-id`: `parseArgs` refuses
 * a value that starts with a dash as ambiguous, and these two can only be values.
 */
export const joinDescendingSorts = (argv: readonly string[]): string[] => {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = argv[i + 1];
    if (arg === '--') {
      joined.push(...argv.slice(i));
      break;
    }
    if (arg === '--sort' && (value === '-id' || value === '-name')) {
      joined.push(`--sort=${value}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
};
