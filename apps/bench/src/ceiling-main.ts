import { createCeilingServer } from './ceiling-server.js';

/**
 * Entry of the ceiling server process (`node dist/ceiling-main.js`), started by the bench like the
 * real server: HOST, PORT and CEILING_TOKEN from the environment; SIGTERM closes it.
 */
const token = process.env['CEILING_TOKEN'];
const port = Number(process.env['PORT'] ?? '0');
const host = process.env['HOST'] ?? '127.0.0.1';
if (token === undefined || token === '' || !Number.isInteger(port)) {
  throw new TypeError('ceiling-main: CEILING_TOKEN and an integer PORT are required');
}

const { server } = createCeilingServer(token);
server.listen(port, host, () => {
  const address = server.address();
  process.stdout.write(
    `ceiling listening on ${typeof address === 'object' && address !== null ? address.port : port}\n`,
  );
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
