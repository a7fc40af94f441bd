// Create, get, page through every plant with a tag, delete — with the published client.
//
//   pnpm -C examples crud      (a server running: `npx -y pnpm@10 start`; PLANT_STORE_TOKEN set)
import { NotFoundError } from '@plant-store/client';
import { check, connect, fresh } from './support.js';

const client = connect();

// A tag of our own, so the listing below shows this run's plants and nothing else in your store.
const tag = fresh('crud-demo');

// Create: the server picks the ids. `create` resolves to the plant (the id comes from the 201's
// Location header) and carries its ETag as a non-enumerable property.
const names = ['Monstera deliciosa', 'Calathea orbifolia', 'Boston fern', 'Pilea peperomioides', 'Snake plant'];
const created = [];
for (const name of names) {
  const plant = await client.plants.create({ name, tag });
  console.log(`created plant ${plant.id}: ${plant.name} [${plant.tag}] ETag ${plant.etag}`);
  created.push(plant);
}
// One more without the tag: the tag filter below must leave it out.
const untagged = await client.plants.create({ name: 'Aloe vera' });
console.log(`created plant ${untagged.id}: ${untagged.name} (no tag)`);

// Get one back by id.
const first = created[0];
check(first !== undefined, 'the first create returned a plant');
const fetched = await client.plants.get(first.id);
console.log(`got plant ${fetched.id}: ${fetched.name} [${fetched.tag}] ETag ${fetched.etag}`);
check(fetched.name === first.name && fetched.tag === tag, 'get returns what create stored');

// Page through every plant with the tag, two per page: `next` is present while the server's
// Link header announces another page, and keeps the tag.
let page = await client.plants.list({ tag, limit: 2 });
const seen: number[] = [];
for (let n = 1; ; n++) {
  console.log(`page ${n}: ${page.plants.map((p) => `${p.id} ${p.name}`).join(', ') || '(empty)'}`);
  seen.push(...page.plants.map((p) => p.id));
  if (page.next === undefined) break;
  page = await client.plants.list(page.next);
}
check(
  JSON.stringify(seen) === JSON.stringify(created.map((p) => p.id)),
  `the pages hold exactly the ${created.length} tagged plants, in id order`,
);
console.log(`paged through ${seen.length} plants tagged ${tag}`);

// The same in one line: `all` follows the pages for you.
const viaAll: number[] = [];
for await (const plant of client.plants.all({ tag, limit: 2 })) viaAll.push(plant.id);
check(JSON.stringify(viaAll) === JSON.stringify(seen), 'all() yields the same plants');

// Delete them (and the untagged one); a get afterwards rejects with NotFoundError (404).
for (const plant of [...created, untagged]) await client.plants.delete(plant.id);
console.log(`deleted ${created.length + 1} plants`);
const gone = await client.plants.get(first.id).catch((error: unknown) => error);
check(gone instanceof NotFoundError, 'a deleted plant is gone');
console.log(`get ${first.id} after delete: ${gone.status} ${gone.message}`);
