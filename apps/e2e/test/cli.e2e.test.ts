import { describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode } from './support/processes.js';
import { useLiveServer } from './support/store.js';

const live = useLiveServer();
const cli = (args: readonly string[], token = live.token) =>
  runNode(paths.clientCli, args, { PLANT_STORE_URL: live.server.url, PLANT_STORE_TOKEN: token });

describe('the plant-store CLI against the real server', () => {
  it('creates, gets, lists and deletes, in JSON for scripts', async () => {
    const created = await cli(['create', '--name', 'Fern', '--tag', 'green', '--json']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const { replayed, ...plant } = JSON.parse(created.stdout) as {
      id: number;
      name: string;
      tag: string;
      replayed: boolean;
    };
    expect(replayed).toBe(false);
    expect(plant).toEqual({ id: expect.any(Number), name: 'Fern', tag: 'green' });

    expect(JSON.parse((await cli(['get', String(plant.id), '--json'])).stdout)).toEqual(plant);
    const listed = JSON.parse((await cli(['list', '--all', '--json'])).stdout) as unknown[];
    expect(listed).toContainEqual(plant);

    expect(await cli(['delete', String(plant.id), '--json'])).toMatchObject({ code: 0 });
    const gone = await cli(['get', String(plant.id)]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`no plant with id ${plant.id}`);
  });

  it('prints human output by default', async () => {
    const created = await cli(['create', '--name', 'Monstera', '--id', '31337']);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('31337');
    expect(created.stdout).toContain('Monstera');
    const listed = await cli(['list', '--limit', '1000']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('Monstera');
  });

  it('exits non-zero with the server’s message on errors', async () => {
    await cli(['create', '--name', 'Taken', '--id', '5150']);
    const conflict = await cli(['create', '--name', 'Again', '--id', '5150']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('a plant with id 5150 already exists');

    const forbidden = await cli(['create', '--name', 'Nope'], live.readOnlyToken);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/plants:write/);

    const unauthorized = await cli(['list'], 'pst_notatokennotatokennotatoken');
    expect(unauthorized.code).toBe(1);
    expect(unauthorized.stderr).not.toBe('');
  });

  it('rejects bad usage with exit code 2 and has --help on every command', async () => {
    expect((await cli(['delete', 'abc'])).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
    for (const command of ['create', 'get', 'delete', 'list']) {
      const help = await cli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(command);
    }
  });
});
