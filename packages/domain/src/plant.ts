import * as t from 'io-ts';
import { PlantId } from './plant-id.js';
import { struct } from './struct.js';
import { textCodec } from './text.js';

export const MAX_NAME_LENGTH = 200;
export const MAX_TAG_LENGTH = 100;

export interface PlantNameBrand {
  readonly PlantName: unique symbol;
}
export interface PlantTagBrand {
  readonly PlantTag: unique symbol;
}

/** 1–200 code points, at least one non-whitespace, no control characters, well-formed Unicode. */
export const PlantName = textCodec<PlantNameBrand>('PlantName', MAX_NAME_LENGTH);
export type PlantName = t.TypeOf<typeof PlantName>;

/** 1–100 code points, with the same character rules as the name. */
export const PlantTag = textCodec<PlantTagBrand>('PlantTag', MAX_TAG_LENGTH);
export type PlantTag = t.TypeOf<typeof PlantTag>;

/** The body of `POST /plants`: name, optional tag, optional id. Any other member is rejected. */
export const CreatePlantRequest = struct('CreatePlantRequest', { name: PlantName }, { tag: PlantTag, id: PlantId }, 'reject');
export type CreatePlantRequest = t.TypeOf<typeof CreatePlantRequest>;

/** The body of a 201 from `POST /plants`: name and tag, never the id (it travels in `Location`). */
export const CreatePlantResponse = struct('CreatePlantResponse', { name: PlantName }, { tag: PlantTag }, 'strip');
export type CreatePlantResponse = t.TypeOf<typeof CreatePlantResponse>;

/** A stored plant, as `GET /plants/{id}` and `GET /plants` return it. An absent tag is omitted. */
export const Plant = struct('Plant', { id: PlantId, name: PlantName }, { tag: PlantTag }, 'strip');
export type Plant = t.TypeOf<typeof Plant>;

/** A page of `GET /plants`: plants in ascending id order. */
export const PlantPage = t.readonlyArray(Plant, 'PlantPage');
export type PlantPage = t.TypeOf<typeof PlantPage>;
