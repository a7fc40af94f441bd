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

export type PlantError = InvalidPlant | PlantNotFound | IdTaken;

export const invalidPlant = (problems: readonly string[]): InvalidPlant => ({ _tag: 'InvalidPlant', problems });
export const plantNotFound = (id: PlantId): PlantNotFound => ({ _tag: 'PlantNotFound', id });
export const idTaken = (id: PlantId): IdTaken => ({ _tag: 'IdTaken', id });

/** The human message for a domain error, as the server sends it in `{error, message}`. */
export const describePlantError = (error: PlantError): string => {
  switch (error._tag) {
    case 'InvalidPlant':
      return error.problems.join('; ');
    case 'PlantNotFound':
      return `no plant with id ${error.id}`;
    case 'IdTaken':
      return `a plant with id ${error.id} already exists`;
  }
};
