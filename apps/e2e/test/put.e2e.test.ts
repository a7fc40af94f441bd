import { createPlantStoreClient, PreconditionFailedError, ValidationError } from '@plant-store/client';
import { describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode } from './support/processes.js';
import { useLiveServer } from './support/store.js';

/*
 * PUT /plants/{id} through the published client and the plant-store CLI against a real server
 * process: create or replace, preconditions, the change number of each write, and concurrent
 * PUTs of one new id.
 */

const live = useLiveServer();
const client = () =>
  createPlantStoreClient({ baseUrl: live.server.url, token: live.token, retry: { limit: 0 } }).plants;
const cli = (args: readonly string[]) =>
  runNode(paths.clientCli, args, { PLANT_STORE_URL: live.server.url, PLANT_STORE_TOKEN: live.token });

describe('plants.put against the real server', () => {
  it('creates, then replaces whole, with the ETag and change number the server gives', async () => {
    const plants = client();
    const created = await plants.put(7001, { name: 'Fern', tag: 'shade' });
    expect(created).toEqual({ id: 7001, name: 'Fern', tag: 'shade' });
    expect(created.created).toBe(true);
    const read = await plants.get(7001);
    expect(read.etag).toBe(created.etag);
    const replaced = await plants.put(7001, { name: 'Boston fern' });
    expect(replaced).toEqual({ id: 7001, name: 'Boston fern' });
    expect(replaced.created).toBe(false);
    expect(replaced.changeSeq).toBe((created.changeSeq ?? 0) + 1);
    const same = await plants.put(7001, { name: 'Boston fern' });
    expect([same.etag, same.changeSeq]).toEqual([replaced.etag, replaced.changeSeq]);
    // Every write says where it is in the log, and the feed has the change there.
    const page = await plants.list({ limit: 1 });
    expect(page.changeSeq).toBe(replaced.changeSeq);
    const abort = new AbortController();
    for await (const change of plants.changes({ since: (replaced.changeSeq ?? 1) - 1, signal: abort.signal })) {
      expect(change).toMatchObject({
        seq: replaced.changeSeq,
        type: 'plant.updated',
        data: { id: 7001, name: 'Boston fern' },
      });
      abort.abort();
    }
  });

  it('creates only with ifNoneMatch: *, replaces only with ifMatch: a failure is a PreconditionFailedError', async () => {
    const plants = client();
    const first = await plants.put(7002, { name: 'Ivy' }, { ifNoneMatch: '*' });
    await expect(plants.put(7002, { name: 'Again' }, { ifNoneMatch: '*' })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    await expect(plants.put(7003, { name: 'Nobody' }, { ifMatch: '*' })).rejects.toThrow(
      'no plant with id 7003: If-Match needs an existing plant',
    );
    expect((await plants.put(7002, { name: 'Ivy II' }, { ifMatch: first.etag })).name).toBe('Ivy II');
    await expect(plants.put(7002, { name: 'Stale' }, { ifMatch: first.etag })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    await expect(plants.put(7002, { name: 'Ivy', id: 7002 } as never)).rejects.toBeInstanceOf(ValidationError);
  });

  it('lets exactly one of 20 concurrent PUTs of a new id create it', async () => {
    const plants = client();
    const puts = await Promise.all(Array.from({ length: 20 }, (_, i) => plants.put(7010, { name: `writer ${i}` })));
    expect(puts.filter((p) => p.created)).toHaveLength(1);
    const last = puts.reduce((a, b) => ((a.changeSeq ?? 0) > (b.changeSeq ?? 0) ? a : b));
    expect(await plants.get(7010)).toEqual(last);
  });
});

describe('plant-store put against the real server', () => {
  it('creates and replaces, in text and JSON, and exits 1 when --if-none-match meets a plant', async () => {
    const created = await cli(['put', '7100', '--name', 'Monstera', '--tag', 'tropical']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^Created plant 7100: Monstera \[tropical\] \(ETag "[0-9a-z]+"\)\n$/);
    const replaced = await cli(['put', '7100', '--name', 'Monstera deliciosa', '--json']);
    expect(JSON.parse(replaced.stdout)).toEqual({
      id: 7100,
      name: 'Monstera deliciosa',
      etag: expect.stringMatching(/^"[0-9a-z]+"$/),
      created: false,
    });
    const refused = await cli(['put', '7100', '--name', 'Other', '--if-none-match']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^plant-store: plant 7100 exists already and --if-none-match only creates/);
    expect(await client().get(7100)).toEqual({ id: 7100, name: 'Monstera deliciosa' });
  });
});
