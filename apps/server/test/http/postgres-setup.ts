/**
 * Set-up file of the `postgres` project of vitest.config.ts, run before each of its test files.
 * The config leaves that project out when no PostgreSQL answers outside CI; with CI=true it keeps
 * it, and this fails every file of it with the reason (the `sqlite` project still runs), so CI
 * cannot pass without having run the HTTP tests on PostgreSQL.
 */
import { pgTestUrl, postgresAvailable } from '@plant-store/testkit';

if (!(await postgresAvailable())) {
  const where = pgTestUrl.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  throw new Error(
    `no PostgreSQL reachable at ${where}: CI=true, so the HTTP tests on PostgreSQL fail instead of skipping (set PG_TEST_URL or start PostgreSQL)`,
  );
}
