/** The arguments of the `plant-store` command line, checked: a bad one is a usage error (exit 2). */
import { PageLimitFromString, PlantSort } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { DEFAULT_IMPORT_CONCURRENCY, digestFile, MAX_IMPORT_CONCURRENCY, type FileDigest } from './cli-import.js';
import type { ListPlantsQuery } from './plants-api.js';

/** A bad command line: run-cli prints the message and the --help hint, and exits 2. */
export class UsageError extends Error {}

export const decodeArg = <A>(codec: t.Type<A, string, unknown>, name: string, value: string): A => {
  const decoded = codec.decode(value);
  if (E.isLeft(decoded)) throw new UsageError(`${name}: ${decoded.left[0]?.message ?? 'invalid value'}`);
  return decoded.right;
};

/** The filters and order that list and export share, from their options. */
export const listQueryArgs = (values: {
  readonly limit?: string | undefined;
  readonly sort?: string | undefined;
  readonly q?: string | undefined;
  readonly tag?: string | undefined;
}): ListPlantsQuery<PlantSort> => {
  const limit = values.limit === undefined ? undefined : decodeArg(PageLimitFromString, '--limit', values.limit);
  const sort = values.sort === undefined ? undefined : decodeArg(PlantSort, '--sort', values.sort);
  const { tag, q } = values;
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(sort === undefined ? {} : { sort }),
    ...(q === undefined ? {} : { q }),
    ...(tag === undefined ? {} : { tag }),
  };
};

/** `--concurrency` of import: 1–64, default 8. */
export const concurrencyArg = (value: string | undefined): number => {
  if (value === undefined) return DEFAULT_IMPORT_CONCURRENCY;
  const n = /^[0-9]{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= MAX_IMPORT_CONCURRENCY)) {
    throw new UsageError(`--concurrency: expected an integer from 1 to ${MAX_IMPORT_CONCURRENCY}, got "${value}"`);
  }
  return n;
};

/** The file's digest (the first of import's two passes); a file that cannot be read is a usage error. */
export const digestArg = async (path: string): Promise<FileDigest> => {
  try {
    return await digestFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : error instanceof Error
              ? error.message
              : String(error);
    throw new UsageError(`cannot read ${path}: ${reason}`);
  }
};
