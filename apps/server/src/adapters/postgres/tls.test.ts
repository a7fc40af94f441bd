import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConnectionUrl } from './tls.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-tls-'));
const ca = join(dir, 'ca.pem');
writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');
const cert = join(dir, 'client.crt');
writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nthe client\n-----END CERTIFICATE-----\n');
const key = join(dir, 'client.key');
writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nits key\n-----END PRIVATE KEY-----\n');
const file = (path: string) => encodeURIComponent(path);

describe('readConnectionUrl', () => {
  it('leaves a URL without TLS settings as it is', () => {
    const url = 'postgres://u:p@h1:5432,h2:5433/db?options=-c%20search_path%3Dx&application_name=a+b';
    expect(readConnectionUrl(url)).toEqual({ driverUrl: url, tls: undefined });
  });

  it('takes sslmode and sslrootcert off the URL and passes the rest on byte for byte', () => {
    const { driverUrl, tls } = readConnectionUrl(
      `postgres://u@h/db?options=-c%20search_path%3Dx&sslmode=verify-full&sslrootcert=${encodeURIComponent(ca)}&target_session_attrs=read-write`,
    );
    expect(driverUrl).toBe('postgres://u@h/db?options=-c%20search_path%3Dx&target_session_attrs=read-write');
    expect(tls).toMatchObject({ mode: 'verify-full', verify: 'full' });
    expect(tls?.ca).toContain('not checked here');
  });

  it.each([
    ['disable', undefined, undefined],
    ['prefer', undefined, 'none'],
    ['require', undefined, 'none'],
    // libpq: a root certificate given makes require check the chain.
    ['require', ca, 'ca'],
    ['verify-ca', undefined, 'ca'],
    ['verify-full', ca, 'full'],
  ] as const)('sslmode=%s with sslrootcert %s checks %s', (mode, root, verify) => {
    const query = `sslmode=${mode}${root === undefined ? '' : `&sslrootcert=${encodeURIComponent(root)}`}`;
    const { driverUrl, tls } = readConnectionUrl(`postgres://h/db?${query}`);
    expect(driverUrl).toBe('postgres://h/db');
    expect(tls?.verify).toBe(verify);
  });

  it('is disable without sslmode, and verify-full with sslrootcert=system alone', () => {
    expect(readConnectionUrl('postgres://h/db?application_name=x').tls).toBeUndefined();
    expect(readConnectionUrl('postgres://h/db?sslrootcert=system').tls).toEqual({
      mode: 'verify-full',
      verify: 'full',
      ca: undefined,
      client: undefined,
    });
  });

  it('takes sslcert and sslkey off the URL and reads both files for the handshake', () => {
    const { driverUrl, tls } = readConnectionUrl(
      `postgres://u@h1,h2/db?sslmode=verify-full&sslrootcert=${file(ca)}&sslcert=${file(cert)}&sslkey=${file(key)}&application_name=a`,
    );
    expect(driverUrl).toBe('postgres://u@h1,h2/db?application_name=a');
    expect(tls).toEqual({
      mode: 'verify-full',
      verify: 'full',
      ca: expect.stringContaining('not checked here'),
      client: { cert: expect.stringContaining('the client'), key: expect.stringContaining('its key') },
    });
    expect(readConnectionUrl(`postgres://h/db?sslmode=require&sslcert=${file(cert)}&sslkey=${file(key)}`).tls).toEqual({
      mode: 'require',
      verify: 'none',
      ca: undefined,
      client: { cert: expect.stringContaining('the client'), key: expect.stringContaining('its key') },
    });
  });

  it.each([
    ['postgres://h/db?sslmode=on', /sslmode must be one of disable, prefer, require, verify-ca, verify-full; got "on"/],
    ['postgres://h/db?sslmode=allow', /sslmode must be one of/],
    ['postgres://h/db?sslmode=require&sslrootcert=system', /sslrootcert=system needs sslmode=verify-full/],
    [
      'postgres://h/db?sslmode=require&sslrootcert=/nonexistent/ca.pem',
      /sslrootcert "\/nonexistent\/ca.pem" cannot be read: ENOENT/,
    ],
    [`postgres://h/db?sslmode=require&sslcert=${file(cert)}`, /sslcert and sslkey go together/],
    [`postgres://h/db?sslmode=require&sslkey=${file(key)}`, /sslcert and sslkey go together/],
    [`postgres://h/db?sslcert=${file(cert)}&sslkey=${file(key)}`, /sslcert and sslkey need TLS: add sslmode=/],
    [
      `postgres://h/db?sslmode=require&sslcert=${file(cert)}&sslkey=/nonexistent/client.key`,
      /sslkey "\/nonexistent\/client.key" cannot be read: ENOENT/,
    ],
    [
      'postgres://h/db?sslmode=require&sslpassword=x&sslcrl=/c.pem&sslpassword=y',
      /^sslpassword, sslcrl: not supported in a PostgreSQL URL here \(only sslmode, sslrootcert, sslcert, sslkey\)$/,
    ],
  ])('refuses %s', (url, message) => {
    expect(() => readConnectionUrl(url)).toThrow(message);
  });
});
