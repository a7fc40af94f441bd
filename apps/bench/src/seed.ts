import { Plant, PlantPage } from '@plant-store/domain';

const post = async (base: string, token: string, id: number): Promise<void> => {
  const res = await fetch(`${base}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: `seed plant ${id}`, tag: 'seed' }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`seeding: POST /plants id ${id} answered ${res.status}: ${text.slice(0, 300)}`);
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
  if (one.status !== 200 || plant._tag === 'Left' || plant.right.id !== seededFrom) {
    throw new Error(`smoke check: GET /plants/${seededFrom} answered ${one.status} without the seeded plant`);
  }
  const list = await fetch(`${base}/plants?limit=100`, { headers: auth });
  const page = PlantPage.decode(await list.json());
  const expected = Math.min(100, seededTo - seededFrom + 1);
  if (list.status !== 200 || page._tag === 'Left' || page.right.length < expected) {
    throw new Error(`smoke check: GET /plants?limit=100 answered ${list.status} without ${expected} plants`);
  }
  const id = seededTo + 1;
  await post(base, token, id);
  const gone = await fetch(`${base}/plants/${id}`, { method: 'DELETE', headers: auth });
  await gone.arrayBuffer();
  if (gone.status !== 204) throw new Error(`smoke check: DELETE /plants/${id} answered ${gone.status}`);
};
