// The same create with a client generated from the served OpenAPI document, as a team that
// does not use @plant-store/client would do it: openapi-typescript turned GET /openapi.json into
// types (src/generated/plant-store-api.ts; `pnpm -C examples generate` makes it again) and
// openapi-fetch makes calls typed by them — paths, parameters, bodies, headers, error bodies.
//
//   pnpm -C examples generated-client      (a server running; PLANT_STORE_TOKEN set)
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { paths } from './generated/plant-store-api.js';
import { baseUrl, check, fresh, token } from './support.js';

const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token()}` } });

// Create, with an Idempotency-Key so that the request can be sent again if its answer is lost.
// The 201's body is name and tag only: the id travels in the required Location header.
const created = await api.POST('/plants', {
  params: { header: { 'Idempotency-Key': randomUUID() } },
  body: { name: 'Monstera deliciosa', tag: fresh('generated-demo') },
});
if (created.error !== undefined)
  throw new Error(`example failed: create answered ${created.error.error} ${created.error.message}`);
const location = created.response.headers.get('Location') ?? '';
console.log(
  `POST /plants: ${created.response.status}, Location: ${location}, ETag: ${created.response.headers.get('ETag')}, body: ${JSON.stringify(created.data)}`,
);
const id = Number(/^\/plants\/([0-9]+)$/.exec(location)?.[1]);
check(created.response.status === 201 && Number.isSafeInteger(id), 'a 201 with Location: /plants/{id}');

// Read it back: `id` is typed as a number, the answer as { id, name, tag? }.
const fetched = await api.GET('/plants/{id}', { params: { path: { id } } });
check(fetched.data !== undefined, `GET /plants/${id} answered ${fetched.response.status}`);
console.log(`GET /plants/${id}: ${fetched.response.status} ${JSON.stringify(fetched.data)}`);
check(fetched.data.name === 'Monstera deliciosa', 'get returns what create stored');

// Delete it; a second delete gets the typed error body { error: 404, message }.
const deleted = await api.DELETE('/plants/{id}', { params: { path: { id } } });
console.log(`DELETE /plants/${id}: ${deleted.response.status}`);
const again = await api.DELETE('/plants/{id}', { params: { path: { id } } });
check(again.error?.error === 404, 'a second delete is a 404');
console.log(`DELETE /plants/${id} again: ${again.error.error} ${again.error.message}`);
