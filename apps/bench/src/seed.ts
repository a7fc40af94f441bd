import { Plant, PlantPage } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { expectedTagPage, lastCursor, PAGE_TAG, tagPagePrefix } from './tag-pages.js';

const post = async (base: string, token: string, id: number): Promise<void> => {
  const res = await fetch(`${base}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: `seed plant ${id}`, tag: 'seed' }),
  });
  const text = await res.text();
  if (res.status !== 201)
    throw new Error(`seeding: POST /plants id ${id} answered ${res.status}: ${text.slice(0, 300)}`);
  if (res.headers.get('location') !== `/plants/${id}`) throw new Error(`seeding: 201 without Location /plants/${id}`);
};

/** Creates plants `from…to` over HTTP (16 at a time), each checked for its 201. */
export const seedPlants = async (base: string, token: string, from: number, to: number): Promise<void> => {
  let next = from;
  const worker = async (): Promise<void> => {
    while (next <= to) await post(base, token, next++);
  };
  await Promise.all(Array.from({ length: 16 }, worker));
};

/**
 * Checks, before any load, that the server answers the routes the scenarios use as the contract
 * says (so a fast wrong answer cannot pass for a fast right one): get, list, delete.
 */
export const smokeCheck = async (base: string, token: string, seededFrom: number, seededTo: number): Promise<void> => {
  const auth = { authorization: `Bearer ${token}` };
  const one = await fetch(`${base}/plants/${seededFrom}`, { headers: auth });
  const plant = Plant.decode(await one.json());
  if (one.status !== 200 || E.isLeft(plant) || plant.right.id !== seededFrom) {
    throw new Error(`smoke check: GET /plants/${seededFrom} answered ${one.status} without the seeded plant`);
  }
  const list = await fetch(`${base}/plants?limit=100`, { headers: auth });
  const page = PlantPage.decode(await list.json());
  const expected = Math.min(100, seededTo - seededFrom + 1);
  if (list.status !== 200 || E.isLeft(page) || page.right.length < expected) {
    throw new Error(`smoke check: GET /plants?limit=100 answered ${list.status} without ${expected} plants`);
  }
  const id = seededTo + 1;
  await post(base, token, id);
  const gone = await fetch(`${base}/plants/${id}`, { method: 'DELETE', headers: auth });
  await gone.arrayBuffer();
  if (gone.status !== 204) throw new Error(`smoke check: DELETE /plants/${id} answered ${gone.status}`);
};

/**
 * Checks, before the `patch` load, that a PATCH changes the plant as the contract says: 200 with
 * the whole plant renamed (its tag kept), the change visible to a GET, and — where the server
 * gives ETags (ours; the ceiling gives none) — a new ETag. Leaves the plant renamed.
 */
export const smokeCheckPatch = async (base: string, token: string, id: number): Promise<void> => {
  const auth = { authorization: `Bearer ${token}` };
  const before = await fetch(`${base}/plants/${id}`, { headers: auth });
  const plant = Plant.decode(await before.json());
  if (before.status !== 200 || E.isLeft(plant))
    throw new Error(`smoke check: GET /plants/${id} answered ${before.status} without a plant`);
  const name = `smoke check patch ${id}`;
  const res = await fetch(`${base}/plants/${id}`, {
    method: 'PATCH',
    headers: { ...auth, 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ name }),
  });
  const patched = Plant.decode(await res.json());
  const { tag } = plant.right;
  if (
    res.status !== 200 ||
    E.isLeft(patched) ||
    patched.right.id !== id ||
    patched.right.name !== name ||
    patched.right.tag !== tag
  ) {
    throw new Error(
      `smoke check: PATCH /plants/${id} {"name"} answered ${res.status} without the plant renamed ${JSON.stringify(name)}, tag ${JSON.stringify(tag)}`,
    );
  }
  const etags = [before.headers.get('etag'), res.headers.get('etag')];
  if (etags[0] !== null && etags[0] === etags[1])
    throw new Error(`smoke check: PATCH /plants/${id} changed the name but kept the ETag ${etags[0]}`);
  const after = await fetch(`${base}/plants/${id}`, { headers: auth });
  const seen = Plant.decode(await after.json());
  if (after.status !== 200 || E.isLeft(seen) || seen.right.name !== name)
    throw new Error(`smoke check: GET /plants/${id} after a PATCH does not show the new name`);
};

/**
 * Checks a tagged store (src/tag-pages.ts) of plants `1…size` before its load: the first and the
 * last page the `list-tag` scenario can ask for hold exactly the plants with the tag, in id order,
 * and a full page links to the next one with the tag in it.
 */
export const smokeCheckTagPage = async (base: string, token: string, size: number): Promise<void> => {
  for (const after of [0, lastCursor(size)]) {
    const path = `${tagPagePrefix(PAGE_TAG)}${after}`;
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const page = PlantPage.decode(await res.json());
    const ids =
      E.isRight(page) && page.right.every((p) => p.tag === PAGE_TAG) ? page.right.map((p) => p.id) : undefined;
    const expected = expectedTagPage(size, after);
    if (res.status !== 200 || ids === undefined || ids.join(',') !== expected.join(',')) {
      throw new Error(
        `smoke check: GET ${path} answered ${res.status} without the ${expected.length} plants tagged ${PAGE_TAG} from ${expected[0]} to ${expected.at(-1)}`,
      );
    }
    // The first page has more after it (the last one may or may not say so).
    const link = res.headers.get('link') ?? '';
    if (after === 0 && (!link.includes(`tag=${PAGE_TAG}`) || !link.includes(`after=${expected.at(-1)}`))) {
      throw new Error(
        `smoke check: GET ${path}: the next page's Link does not carry the tag and the cursor: ${JSON.stringify(link)}`,
      );
    }
  }
};
