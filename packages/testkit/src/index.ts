export {
  describePostgres,
  freshPostgresUrl,
  openAdminSql,
  pgTestUrl,
  postgresAvailable,
  type FreshPostgres,
} from './postgres.js';
export {
  freePort,
  rssBytes,
  runNode,
  startServer,
  tempDir,
  type RunResult,
  type ServerProcess,
  type StartServerOptions,
} from './processes.js';
