// A create retried safely after its answer was lost: the Idempotency-Key.
//
//   pnpm -C examples idempotent-create      (a server running; PLANT_STORE_TOKEN set)
//
// The client sends an `Idempotency-Key` with every create and retries with the same key when no
// answer arrives. The server stores the plant once per key and answers a repeat with the saved
// first answer (`Idempotent-Replayed: true`), so a retry never makes a second plant.
import { IdempotencyKeyReusedError } from '@plant-store/client';
import { startLossyProxy } from './lossy-proxy.js';
import { baseUrl, check, connect, fresh } from './support.js';

// To show a real lost answer, this example talks to the server through a proxy that can cut the
// connection after the server has answered (see lossy-proxy.ts). Your code talks to the server.
const proxy = await startLossyProxy(baseUrl);
const client = connect({
  baseUrl: proxy.url,
  hooks: {
    beforeRetry: [
      ({ request, error }) =>
        console.log(
          `attempt ${request.attempt} got no answer (${error._tag}: ${error.message}); retrying with the same key`,
        ),
    ],
  },
});

// Your own key: derive it from what identifies the request in your system (here an order line),
// and the create can be repeated across calls, processes and restarts. Without one the client
// makes a fresh key per call, which covers its own retries.
const key = `${fresh('order')}:line-1`;
const tag = fresh('idempotency-demo');
const input = { name: 'Fiddle-leaf fig', tag };

// 1. The server stores the plant, the answer is lost, the client retries with the same key and
//    gets the saved 201: the same plant, `replayed: true`.
proxy.loseNextAnswer();
const plant = await client.plants.create(input, { idempotencyKey: key });
console.log(`created plant ${plant.id}: ${plant.name} (replayed: ${plant.replayed})`);
check(plant.replayed, 'the retry after the lost answer was answered from the saved outcome');

// 2. The same key again later, from a new call (say, after your process restarted): the same plant.
const again = await client.plants.create(input, { idempotencyKey: key });
console.log(`same key again: plant ${again.id} (replayed: ${again.replayed})`);
check(again.id === plant.id && again.replayed, 'the same key gives the same plant');

// 3. The same key with a different request is refused (422) and changes nothing.
const misuse = await client.plants
  .create({ name: 'Something else', tag }, { idempotencyKey: key })
  .catch((error: unknown) => error);
check(misuse instanceof IdempotencyKeyReusedError, 'a key reused for another request is refused');
console.log(`same key, other plant: ${misuse.status} ${misuse.message}`);

// However many requests were sent, the store holds exactly one plant with our tag.
const stored = [];
for await (const p of client.plants.all({ tag })) stored.push(p);
console.log(`plants tagged ${tag}: ${stored.length}`);
check(stored.length === 1 && stored[0]?.id === plant.id, 'exactly one plant was stored');

await client.plants.delete(plant.id);
await proxy.close();
