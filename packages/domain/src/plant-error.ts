import type { PlantId } from './plant-id.js';

/** Input that does not satisfy the contract; `problems` holds one readable line per failing field. */
export interface InvalidPlant {
  readonly _tag: 'InvalidPlant';
  readonly problems: readonly string[];
}

/** No plant has this id. */
export interface PlantNotFound {
  readonly _tag: 'PlantNotFound';
  readonly id: PlantId;
}

/** A create named an id that another plant already has. */
export interface IdTaken {
  readonly _tag: 'IdTaken';
  readonly id: PlantId;
}

/**
 * A conditional request's `If-Match` or `If-None-Match` does not hold for the plant as it is
 * (412); `absent`: there is no plant, and If-Match needs one (a PUT that may only replace).
 */
export interface PreconditionFailed {
  readonly _tag: 'PreconditionFailed';
  readonly id: PlantId;
  readonly header: 'If-Match' | 'If-None-Match';
  readonly absent?: true;
}

export type PlantError = InvalidPlant | PlantNotFound | IdTaken | PreconditionFailed;

export const invalidPlant = (problems: readonly string[]): InvalidPlant => ({ _tag: 'InvalidPlant', problems });
export const plantNotFound = (id: PlantId): PlantNotFound => ({ _tag: 'PlantNotFound', id });
export const idTaken = (id: PlantId): IdTaken => ({ _tag: 'IdTaken', id });
export const preconditionFailed = (
  id: PlantId,
  header: PreconditionFailed['header'],
  absent = false,
): PreconditionFailed =>
  absent ? { _tag: 'PreconditionFailed', id, header, absent } : { _tag: 'PreconditionFailed', id, header };

/** The human message for a domain error, as the server sends it in `{error, message}`. */
export const describePlantError = (error: PlantError): string => {
  switch (error._tag) {
    case 'InvalidPlant':
      return error.problems.join('; ');
    case 'PlantNotFound':
      return `no plant with id ${error.id}`;
    case 'IdTaken':
      return `a plant with id ${error.id} already exists`;
    case 'PreconditionFailed':
      if (error.absent === true) return `no plant with id ${error.id}: ${error.header} needs an existing plant`;
      return error.header === 'If-Match'
        ? `plant ${error.id} has changed: If-Match does not name its current ETag`
        : `plant ${error.id} matches If-None-Match`;
  }
};
