/**
 * Every example, run as its one command runs it, against a real listening server (the built
 * apps/server, on a fresh SQLite file, and on a fresh PostgreSQL schema where the store matters).
 * Each example exits non-zero when what it shows did not happen; these tests check that it exited
 * 0, the key lines of what it printed, and that it left the store as it found it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describePostgres } from '@plant-store/testkit';
import { describe, expect, it } from 'vitest';
import { paths, plantsIn, runExample, useServer, type LiveServer } from './support.js';

/** The examples whose behaviour depends on the store: create/get/page/delete, keys, ETags. */
const storeExamples = (live: LiveServer): void => {
  it('crud: creates, gets, pages through the tagged plants and deletes them', async () => {
    const out = await runExample(live.server, 'crud.js');
    expect(out).toMatch(/^created plant \d+: Monstera deliciosa \[crud-demo-\w+\] ETag "\w+"$/m);
    expect(out).toMatch(/^page 1: \d+ Monstera deliciosa, \d+ Calathea orbifolia$/m);
    expect(out).toMatch(/^page 2: \d+ Boston fern, \d+ Pilea peperomioides$/m);
    expect(out).toMatch(/^page 3: \d+ Snake plant$/m);
    expect(out).toMatch(/^paged through 5 plants tagged crud-demo-\w+$/m);
    expect(out).toMatch(/^get \d+ after delete: 404 no plant with id \d+$/m);
  });

  it('idempotent-create: a lost answer, retried with the same key, gives the one plant, replayed', async () => {
    const out = await runExample(live.server, 'idempotent-create.js');
    expect(out).toMatch(/^attempt 1 got no answer \(Connection: .*\); retrying with the same key$/m);
    const id = /^created plant (\d+): Fiddle-leaf fig \(replayed: true\)$/m.exec(out)?.[1];
    expect(id).toBeDefined();
    expect(out).toContain(`same key again: plant ${id} (replayed: true)`);
    expect(out).toMatch(
      /^same key, other plant: 422 Idempotency-Key "order-\w+:line-1" was already used with a different request/m,
    );
    expect(out).toMatch(/^plants tagged idempotency-demo-\w+: 1$/m);
  });

  it('read-modify-write: gets a 412 from a second writer, reads again and keeps both changes', async () => {
    const out = await runExample(live.server, 'read-modify-write.js');
    expect(out).toMatch(/^ {2}meanwhile another writer moved it to \[window sill\]: ETag now "\w+"$/m);
    expect(out).toMatch(
      /^round 1: 412 plant \d+ has changed: If-Match does not name its current ETag; reading it again$/m,
    );
    expect(out).toMatch(/^round 2: updated to "Monstera \(repotted\)" \[window sill\]$/m);
    expect(out).toMatch(/^kept both changes after 1 conflict/m);
  });
};

describe('the examples on SQLite', () => {
  const live = useServer('sqlite');
  storeExamples(live);

  it('curl: creates with an Idempotency-Key, replays it, gets and deletes the plant', async () => {
    const out = await runExample(live.server, 'create-with-curl.sh');
    const location =
      /^POST \/plants: 201, Location: (\/plants\/\d+), ETag: "\w+", body: \{"name":"Monstera deliciosa","tag":"tropical"\}$/m.exec(
        out,
      )?.[1];
    expect(location).toBeDefined();
    expect(out).toContain(`the same POST again: 201, Location: ${location}, Idempotent-Replayed: true`);
    expect(out).toContain(`DELETE ${location}: 204`);
  });

  it('generated-client: creates, gets and deletes through openapi-fetch with the generated types', async () => {
    const out = await runExample(live.server, 'generated-client.js');
    expect(out).toMatch(
      /^POST \/plants: 201, Location: \/plants\/\d+, ETag: "\w+", body: \{"name":"Monstera deliciosa","tag":"generated-demo-\w+"\}$/m,
    );
    expect(out).toMatch(
      /^GET \/plants\/\d+: 200 \{"id":\d+,"name":"Monstera deliciosa","tag":"generated-demo-\w+"\}$/m,
    );
    expect(out).toMatch(/^DELETE \/plants\/\d+ again: 404 no plant with id \d+$/m);
  });

  it('the generated types match what openapi-typescript makes of the served /openapi.json', async () => {
    expect(await runExample(live.server, 'generate-api-types.js', {}, ['--check'])).toMatch(
      /plant-store-api\.ts matches /,
    );
  });

  it('every example cleans up after itself', async () => {
    expect(await plantsIn(live.server)).toEqual([]);
  });
});

describePostgres('the examples on PostgreSQL', () => {
  const live = useServer('postgres');
  storeExamples(live);

  it('every example cleans up after itself', async () => {
    expect(await plantsIn(live.server)).toEqual([]);
  });
});

describe('the one command of each example', () => {
  const pkg = JSON.parse(readFileSync(`${paths.examples}package.json`, 'utf8')) as { scripts: Record<string, string> };
  const sources = readdirSync(`${paths.examples}src`).filter((file) => /\.(ts|sh)$/.test(file));

  it('is the `pnpm -C examples <script>` its header names, and that script runs this very file', () => {
    const commands = sources.flatMap((file) => {
      const name = /^(?:\/\/|#) +(?:\d\. )?pnpm -C examples ([\w-]+)/m.exec(
        readFileSync(`${paths.examples}src/${file}`, 'utf8'),
      )?.[1];
      return name === undefined ? [] : [{ file, name, command: pkg.scripts[name] ?? '(no such script)' }];
    });
    expect(commands.map((c) => c.file).sort()).toEqual(
      [
        'create-with-curl.sh',
        'crud.ts',
        'generate-api-types.ts',
        'generated-client.ts',
        'idempotent-create.ts',
        'read-modify-write.ts',
        'webhook-receiver.ts',
      ].sort(),
    );
    for (const { file, command } of commands) {
      expect(command).toMatch(
        file.endsWith('.sh')
          ? `bash src/${file}`
          : new RegExp(
              `^turbo run build --filter=@plant-store/examples\\.\\.\\. .*&& node dist/${file.replace('.ts', '.js')}$`,
            ),
      );
    }
  });
});
