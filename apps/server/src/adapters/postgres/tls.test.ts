import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConnectionUrl } from './tls.js';

const ca = join(mkdtempSync(join(tmpdir(), 'plant-store-tls-')), 'ca.pem');
writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');

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
  ])('refuses %s', (url, message) => {
    expect(() => readConnectionUrl(url)).toThrow(message);
  });
});
