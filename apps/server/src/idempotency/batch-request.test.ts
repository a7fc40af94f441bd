import { CreatePlantRequest, type PlantId } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { idsTaken } from '../ports/plant-store.js';
import {
  canonicalBatchRequest,
  isBatchText,
  replayBatchOf,
  savedBatchFromText,
  savedBatchText,
} from './batch-request.js';
import { canonicalRequest } from './canonical-request.js';

const decode = (value: unknown): CreatePlantRequest => {
  const decoded = CreatePlantRequest.decode(value);
  if (E.isLeft(decoded)) throw new TypeError(`bad test request ${JSON.stringify(value)}`);
  return decoded.right;
};
const IVY = 'Ivy "x" \\ \u2028';
const requests = [decode({ name: 'Fern', tag: 'green' }), decode({ id: 7, name: IVY })];
const claim = { owner: 'token t', key: 'k' as never, request: canonicalBatchRequest(requests) };
const reused = E.left({ _tag: 'IdempotencyKeyReused', key: 'k' });

describe('canonicalBatchRequest', () => {
  it('lists each element as canonicalRequest writes it, in order, and is never a single create', () => {
    expect(canonicalBatchRequest(requests)).toBe(`{"batch":[${requests.map(canonicalRequest).join(',')}]}`);
    expect(canonicalBatchRequest([...requests].reverse())).not.toBe(canonicalBatchRequest(requests));
    expect(isBatchText(canonicalBatchRequest(requests))).toBe(true);
    expect(isBatchText(canonicalRequest(requests[0] as CreatePlantRequest))).toBe(false);
    // The saved text's first line feed ends the request.
    expect(canonicalBatchRequest(requests)).not.toContain('\n');
  });
});

describe('savedBatchFromText', () => {
  it('reads back a 201: the plants rebuilt from the requests and ids, and the change number', () => {
    const result = E.right({
      plants: [
        { id: 3 as PlantId, name: 'Fern', tag: 'green' },
        { id: 7 as PlantId, name: IVY },
      ] as never,
      changeSeq: 41,
    });
    const text = savedBatchText(claim.request, result);
    expect(savedBatchFromText(text)).toEqual(E.right({ request: claim.request, result }));
    expect(replayBatchOf(text, claim)).toEqual(E.right({ result, replayed: true }));
  });

  it('reads back a 409, and the outcome as PostgreSQL writes it (jsonb text, with spaces)', () => {
    expect(savedBatchFromText(`${claim.request}\n{"taken": [7, 3]}`)).toEqual(
      E.right({ request: claim.request, result: E.left(idsTaken([7, 3] as PlantId[])) }),
    );
    expect(E.isRight(savedBatchFromText(`${claim.request}\n{"ids": [3, 7], "seq": 9}`))).toBe(true);
  });

  it("compares in today's canonical form: an element saved in the other form still replays", () => {
    // The second element as an encoded object instead of the earlier form's array.
    const saved = `{"batch":[[null,"Fern","green"],{"id":7,"name":${JSON.stringify(IVY)}}]}\n{"taken":[7]}`;
    expect(replayBatchOf(saved, claim)).toEqual(
      E.right({ result: E.left(idsTaken([7] as PlantId[])), replayed: true }),
    );
  });

  it('answers IdempotencyKeyReused for another array or a single create, and refuses what does not decode', () => {
    const other = savedBatchText(
      canonicalBatchRequest([requests[0] as CreatePlantRequest]),
      E.left(idsTaken([1 as PlantId])),
    );
    expect(replayBatchOf(other, claim)).toEqual(reused);
    expect(replayBatchOf('[null,"Fern",null]', claim)).toEqual(reused);
    for (const bad of [
      claim.request,
      `${claim.request}\nnope`,
      `${claim.request}\n{"ids":[1],"seq":2}`,
      `${claim.request}\n{"ids":[1,0],"seq":2}`,
      `{"batch":[{"name":""}]}\n{"taken":[1]}`,
      `{"batch":[["id",null]]}\n{"taken":[7]}`,
    ])
      expect(E.isLeft(savedBatchFromText(bad)), bad).toBe(true);
  });
});
