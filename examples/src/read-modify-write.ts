// A safe read-modify-write loop: get → change → update with `ifMatch`, again on 412.
//
//   pnpm -C examples read-modify-write      (a server running; PLANT_STORE_TOKEN set)
//
// Two people who read a plant and then both write it would silently overwrite each other (a lost
// update). With `ifMatch: plant.etag` the server applies the change only if the plant is still as
// it was read; otherwise nothing changes and the client rejects with PreconditionFailedError (412).
import { PreconditionFailedError, type Plant, type UpdatedPlant } from '@plant-store/client';
import { check, connect, fresh } from './support.js';

const client = connect();
const other = connect(); // a second writer, as another user or process would be

const start = await client.plants.create({ name: 'Monstera', tag: fresh('rmw-demo') });
console.log(`created plant ${start.id}: ${start.name} [${start.tag}] ETag ${start.etag}`);

/** Our change, computed from the plant as we read it: mark it repotted (once). */
const repotted = (plant: Plant): string =>
  plant.name.endsWith(' (repotted)') ? plant.name : `${plant.name} (repotted)`;

let conflicts = 0;
let result: UpdatedPlant | undefined;
for (let round = 1; round <= 5 && result === undefined; round++) {
  const plant = await client.plants.get(start.id);
  console.log(`round ${round}: read "${plant.name}" [${plant.tag}] ETag ${plant.etag}`);
  check(plant.etag !== undefined, 'the server sends ETags');

  if (round === 1) {
    // Only so that this example shows a 412: someone else changes the plant between our read and
    // our write, once.
    const theirs = await other.plants.update(start.id, { tag: 'window sill' });
    console.log(`  meanwhile another writer moved it to [${theirs.tag}]: ETag now ${theirs.etag}`);
  }

  try {
    result = await client.plants.update(start.id, { name: repotted(plant) }, { ifMatch: plant.etag });
    console.log(`round ${round}: updated to "${result.name}" [${result.tag}]`);
  } catch (error) {
    if (!(error instanceof PreconditionFailedError)) throw error;
    conflicts++;
    console.log(`round ${round}: 412 ${error.message}; reading it again`);
  }
}

// Both changes are kept: our name and the other writer's tag.
check(conflicts === 1, 'exactly one 412 happened');
check(result?.name === 'Monstera (repotted)' && result.tag === 'window sill', 'neither change was lost');
console.log(`kept both changes after ${conflicts} conflict: "${result.name}" [${result.tag}]`);

// A conditional delete works the same way: only if nobody changed the plant since our update.
await client.plants.delete(start.id, { ifMatch: result.etag });
console.log(`deleted plant ${start.id}`);
