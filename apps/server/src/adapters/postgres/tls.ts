import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';

/**
 * TLS to PostgreSQL as libpq's `sslmode`, `sslrootcert`, `sslcert` and `sslkey` describe it, done
 * by the store itself.
 *
 * The driver is handed a socket that is already encrypted (or plain), never the URL's TLS
 * settings: so the silence watch (silence.ts) reads the protocol in the clear over TLS as over
 * TCP, and the file parameters, which the `postgres` driver would send to the server as settings
 * (and be refused for), are read here. Any other libpq `ssl…` parameter is refused by name. See
 * docs/guides/operations.md, "PostgreSQL over TLS".
 */

export const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** How a TLS connection is made and what of the server's certificate is checked. */
export interface TlsPolicy {
  /** `prefer`: a server that says it has no TLS is used in the clear. */
  readonly mode: Exclude<SslMode, 'disable'>;
  /** none: any certificate; ca: signed by a trusted authority; full: that, and naming the host. */
  readonly verify: 'none' | 'ca' | 'full';
  /** The trusted authorities (sslrootcert's file), or undefined for the system's. */
  readonly ca: string | undefined;
  /** The client certificate and its key (sslcert's and sslkey's files, PEM), or undefined for none. */
  readonly client: { readonly cert: string; readonly key: string } | undefined;
}

export interface PostgresConnectionUrl {
  /** The URL for the driver: without its `ssl…` parameters. */
  readonly driverUrl: string;
  /** undefined: `sslmode=disable` (the default). */
  readonly tls: TlsPolicy | undefined;
}

const isSslMode = (value: string): value is SslMode => (SSL_MODES as readonly string[]).includes(value);

/** The URL parameters read here; any other `ssl…` one is refused rather than sent to the server. */
const TLS_PARAMETERS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey'];

/** The content of the file a parameter names, or a TypeError naming both. */
const readNamedFile = (parameter: string, file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(`${parameter} ${JSON.stringify(file)} cannot be read: ${reason}`);
  }
};

/** sslcert's and sslkey's files, read; both or neither, and only with TLS asked for. */
const readClientCertificate = (cert: string | null, key: string | null, mode: SslMode): TlsPolicy['client'] => {
  const given = (value: string | null): value is string => value !== null && value !== '';
  if (!given(cert) && !given(key)) return undefined;
  if (!given(cert) || !given(key))
    throw new TypeError('sslcert and sslkey go together: give both files (the client certificate and its key)');
  if (mode === 'disable')
    throw new TypeError('sslcert and sslkey need TLS: add sslmode=require, verify-ca or verify-full');
  return { cert: readNamedFile('sslcert', cert), key: readNamedFile('sslkey', key) };
};

/**
 * Reads `sslmode`, `sslrootcert`, `sslcert` and `sslkey` off a postgres:// URL (one or several
 * hosts). Throws a TypeError naming the problem: an sslmode libpq does not have (or `allow`, which
 * this store does not offer), a file that cannot be read, `sslrootcert=system` with a weaker
 * sslmode than verify-full (libpq refuses that too), sslcert without sslkey or the reverse, or
 * with sslmode=disable, and any other `ssl…` parameter of libpq's (sslpassword, sslcrl, …).
 */
export const readConnectionUrl = (url: string): PostgresConnectionUrl => {
  const at = url.indexOf('?');
  if (at < 0) return { driverUrl: url, tls: undefined };
  // The other parameters are passed on as written, byte for byte.
  const ours = new Set(TLS_PARAMETERS);
  const keyOf = (part: string) => new URLSearchParams(part).keys().next().value ?? '';
  const parts = url.slice(at + 1).split('&');
  const unknown = parts.map(keyOf).filter((key) => /^ssl/i.test(key) && !ours.has(key));
  if (unknown.length > 0)
    throw new TypeError(
      `${[...new Set(unknown)].join(', ')}: not supported in a PostgreSQL URL here (only ${TLS_PARAMETERS.join(', ')})`,
    );
  const params = new URLSearchParams(parts.filter((part) => ours.has(keyOf(part))).join('&'));
  const rest = parts.filter((part) => part !== '' && !ours.has(keyOf(part))).join('&');
  const rawMode = params.get('sslmode');
  const rootCert = params.get('sslrootcert');
  const driverUrl = rest === '' ? url.slice(0, at) : `${url.slice(0, at)}?${rest}`;
  if (rawMode !== null && !isSslMode(rawMode)) {
    throw new TypeError(`sslmode must be one of ${SSL_MODES.join(', ')}; got ${JSON.stringify(rawMode)}`);
  }
  const system = rootCert === 'system';
  // libpq: sslrootcert=system means verify-full, and refuses any weaker mode with it.
  const mode: SslMode = rawMode ?? (system ? 'verify-full' : 'disable');
  if (system && mode !== 'verify-full') {
    throw new TypeError(`sslrootcert=system needs sslmode=verify-full (or no sslmode); got sslmode=${mode}`);
  }
  const client = readClientCertificate(params.get('sslcert'), params.get('sslkey'), mode);
  if (mode === 'disable') return { driverUrl, tls: undefined };
  const ca = rootCert !== null && rootCert !== '' && !system ? readNamedFile('sslrootcert', rootCert) : undefined;
  // libpq: with a root certificate given, `require` checks the chain as verify-ca does.
  const verify =
    mode === 'verify-full' ? 'full' : mode === 'verify-ca' || (mode === 'require' && ca !== undefined) ? 'ca' : 'none';
  return { driverUrl, tls: { mode, verify, ca, client } };
};

/** SSLRequest: length 8, the code 1234 5679. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

export class PostgresTlsError extends Error {
  override readonly name = 'PostgresTlsError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** A connection made: `socket` speaks the protocol in the clear, `raw` is its TCP socket (the same one without TLS). */
export interface OpenedSocket {
  readonly socket: net.Socket;
  readonly raw: net.Socket;
}

/**
 * Over `raw`, a TCP connection being made to `where`: unless the server declines under `prefer`,
 * negotiates TLS as PostgreSQL does (an SSLRequest in the clear, one byte of answer, then the
 * handshake). Rejects within `timeoutMs` with the cause: refused, timed out, closed meanwhile, no
 * TLS under require, a certificate that does not verify.
 */
export const connectWithTls = (
  raw: net.Socket,
  where: { readonly host: string; readonly port: number },
  policy: TlsPolicy,
  timeoutMs: number,
): Promise<OpenedSocket> =>
  new Promise((resolve, reject) => {
    const { host, port } = where;
    let current: net.Socket = raw;
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      current.destroy();
      raw.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () =>
        fail(new PostgresTlsError(`connecting to ${host}:${port} took longer than ${timeoutMs} ms`, 'CONNECT_TIMEOUT')),
      timeoutMs,
    );
    const done = (socket: net.Socket): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeListener('error', fail);
      raw.removeListener('error', fail);
      raw.removeListener('close', closed);
      resolve({ socket, raw });
    };
    // Cut by the store while being made (sockets.ts): it ends now, not at the timeout.
    const closed = () =>
      fail(new PostgresTlsError(`the connection to ${host}:${port} was closed while being made`, 'CONNECTION_CLOSED'));
    raw.once('error', fail);
    raw.once('close', closed);
    raw.once('connect', () => {
      raw.write(SSL_REQUEST);
      raw.once('data', (answer: Buffer) => {
        // Anything after the one byte was sent before the handshake, in the clear (CVE-2021-23222).
        if (answer.length !== 1) {
          fail(new PostgresTlsError(`unexpected answer to the TLS request from ${host}:${port}`, 'EPROTO'));
          return;
        }
        if (answer[0] === 0x4e /* N */) {
          if (policy.mode === 'prefer') done(raw);
          else
            fail(
              new PostgresTlsError(
                `PostgreSQL at ${host}:${port} does not offer TLS (sslmode=${policy.mode})`,
                'NO_TLS',
              ),
            );
          return;
        }
        if (answer[0] !== 0x53 /* S */) {
          fail(new PostgresTlsError(`unexpected answer to the TLS request from ${host}:${port}`, 'EPROTO'));
          return;
        }
        const secure = tls.connect({
          socket: raw,
          host,
          // SNI takes names only; an address is checked against the certificate's IP entries.
          ...(net.isIP(host) === 0 ? { servername: host } : {}),
          ...(policy.ca === undefined ? {} : { ca: policy.ca }),
          // Sent when the server asks for one (pg_hba.conf `cert`, or `clientcert=verify-ca/full`).
          ...(policy.client === undefined ? {} : { cert: policy.client.cert, key: policy.client.key }),
          rejectUnauthorized: policy.verify !== 'none',
          ...(policy.verify === 'ca' ? { checkServerIdentity: () => undefined } : {}),
        });
        current = secure;
        secure.once('error', fail);
        secure.once('secureConnect', () => done(secure));
      });
    });
  });
