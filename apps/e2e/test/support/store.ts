import { afterAll, beforeAll } from 'vitest';
import { startServer, tempDir, type ServerProcess } from './processes.js';
import { createToken } from './token.js';

export interface LiveServer {
  server: ServerProcess;
  databaseUrl: string;
  dir: string;
  /** plants:read + plants:write */
  token: string;
  readOnlyToken: string;
}

/** One real server process on a fresh SQLite file for the tests of a file; stopped afterwards. */
export const useLiveServer = (env: Record<string, string> = {}): LiveServer => {
  const live = {} as LiveServer;
  let removeDir: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const dir = await tempDir('e2e');
    removeDir = dir.remove;
    live.dir = dir.path;
    live.databaseUrl = `sqlite:${dir.path}/plant-store.db`;
    live.token = await createToken(live.databaseUrl, 'e2e');
    live.readOnlyToken = await createToken(live.databaseUrl, 'e2e-read', ['plants:read']);
    live.server = await startServer({ DATABASE_URL: live.databaseUrl, ...env });
  });
  afterAll(async () => {
    await live.server?.stop();
    await removeDir?.();
  });
  return live;
};
