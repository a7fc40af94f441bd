import { execFile } from 'node:child_process';
import { chmod, chown, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** A certificate authority made for one test and a server certificate it signed. */
export interface TestCertificates {
  /** The authority's certificate: what `sslrootcert` names. */
  readonly caFile: string;
  /** The server's certificate and key (the key readable by its owner only). */
  readonly certFile: string;
  readonly keyFile: string;
  /** The names and addresses the server certificate is valid for. */
  readonly names: readonly string[];
  /** With `clientName`: a client certificate for that user, signed by the same CA, and its key. */
  readonly client?: { readonly certFile: string; readonly keyFile: string };
}

const openssl = async (args: readonly string[], cwd: string): Promise<void> => {
  try {
    await exec('openssl', args, { cwd, timeout: 30_000 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`openssl ${args.join(' ')} failed: ${e.message}\n${e.stderr ?? ''}`);
  }
};

/** Signs `name`.csr with the CA in `dir` into `name`.crt, with the extensions in `name`.ext. */
const sign = (dir: string, name: string, serial: string) =>
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-set_serial',
      serial,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    ],
    dir,
  );

/**
 * With the `openssl` command: a CA and a server certificate for `dnsNames` and `addresses`
 * (subjectAltName entries), P-256 keys, valid for two days, written into `dir`; with
 * `clientName`, a client certificate whose common name is that PostgreSQL user too. The files
 * belong to `owner` when given (PostgreSQL refuses a key another user can read, or that it does
 * not own); the client's stay ours.
 */
export const makeCertificates = async (
  dir: string,
  {
    dnsNames = [],
    addresses = [],
    clientName,
  }: { dnsNames?: readonly string[]; addresses?: readonly string[]; clientName?: string },
  owner?: { uid: number; gid: number },
): Promise<TestCertificates> => {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=plant-store test CA'],
    dir,
  );
  await openssl(
    ['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=plant-store test server'],
    dir,
  );
  const altNames = [...dnsNames.map((n) => `DNS:${n}`), ...addresses.map((a) => `IP:${a}`)].join(',');
  await writeFile(join(dir, 'server.ext'), `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth\n`);
  await sign(dir, 'server', '2');
  const files = { caFile: join(dir, 'ca.crt'), certFile: join(dir, 'server.crt'), keyFile: join(dir, 'server.key') };
  await chmod(files.keyFile, 0o600);
  if (owner !== undefined) {
    for (const file of Object.values(files)) await chown(file, owner.uid, owner.gid);
  }
  if (clientName === undefined) return { ...files, names: [...dnsNames, ...addresses] };
  await openssl(['req', ...ec, '-keyout', 'client.key', '-out', 'client.csr', '-subj', `/CN=${clientName}`], dir);
  await writeFile(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  await sign(dir, 'client', '3');
  const client = { certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key') };
  await chmod(client.keyFile, 0o600);
  return { ...files, names: [...dnsNames, ...addresses], client };
};
