import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  isPublicAddress,
  nonPublicRange,
  resolveWebhookAddress,
  type LookupAll,
} from './address-policy.js';

const strict = { allowHttp: false, allowPrivate: false } as const;
const open = { allowHttp: true, allowPrivate: true } as const;

const publicAddresses = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '100.63.255.255', // just below 100.64/10
  '100.128.0.0', // just above
  '172.15.255.255', // just below 172.16/12
  '172.32.0.0', // just above
  '192.0.1.1', // between 192.0.0/24 and 192.0.2/24
  '198.17.255.255', // below 198.18/15
  '198.20.0.0', // above
  '223.255.255.255', // below 224/4
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:81a::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808',
  '64:ff9b::8.8.8.8',
  '64:ff9b:1::101:101', // local-use NAT64 in the /96 layout, 1.1.1.1 inside
];

const nonPublicAddresses: readonly (readonly [string, string])[] = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'], // "this network", 0/8
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private-use'],
  ['172.16.0.1', 'private-use'],
  ['172.31.255.255', 'private-use'],
  ['192.168.1.1', 'private-use'],
  ['169.254.169.254', 'link-local'],
  ['100.64.0.1', 'shared address space'],
  ['100.127.255.255', 'shared address space'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.0.1', 'reserved'], // IETF protocol assignments
  ['192.0.0.9', 'reserved'], // PCP anycast: globally reachable per IANA, still no receiver
  ['192.0.2.1', 'reserved'], // TEST-NET-1
  ['198.51.100.7', 'reserved'], // TEST-NET-2
  ['203.0.113.9', 'reserved'], // TEST-NET-3
  ['198.18.0.1', 'reserved'], // benchmarking
  ['198.19.255.255', 'reserved'],
  ['192.88.99.1', 'reserved'], // 6to4 relay anycast (deprecated)
  ['240.0.0.1', 'reserved'],
  ['192.31.196.1', 'AS112'],
  ['192.175.48.1', 'AS112'],
  ['192.52.193.1', 'AMT'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['fc00::1', 'unique local'],
  ['fd00::1', 'unique local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%lo', 'scoped'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['ff0e::1', 'multicast'],
  ['2001:db8::1', 'reserved'], // documentation
  ['3fff::1', 'reserved'], // documentation (RFC 9637)
  ['100::1', 'discard-only'],
  ['2001::1', 'Teredo'],
  ['2001:2::1', 'benchmarking'],
  ['2001:1::1', 'reserved'], // IETF protocol assignments, 2001::/23
  ['2001:10::1', 'ORCHID'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2002:808:808::1', '6to4'],
  ['5f00::1', 'segment routing'],
  ['::8.8.8.8', 'not global unicast'], // deprecated IPv4-compatible (ipaddr.js alone would read ::ffff:8.8.8.8)
  ['::808:808', 'not global unicast'],
  ['::127.0.0.1', 'not global unicast'],
  ['::ffff:0:808:808', 'IPv4-translated'],
  ['4000::1', 'not global unicast'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private-use'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
  ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
  ['64:ff9b::a00:1', 'NAT64 private-use'],
  ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 link-local'],
  ['64:ff9b:1::a00:1', 'NAT64 private-use'],
  ['64:ff9b:1:a00:1::', 'NAT64 local-use'], // an address only other layouts could read
  ['64:ff9b:2::808:808', 'not global unicast'],
];

const notAddresses = [
  '',
  'localhost',
  'example.com',
  '127.1',
  '0x7f.0.0.1',
  '010.0.0.1',
  '1.2.3.4 ',
  '[::1]',
  '256.0.0.1',
  '1.2.3',
  '::ffff:0x7f.0.0.1',
];

describe('isPublicAddress', () => {
  it.each(publicAddresses)('is true for %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
    expect(nonPublicRange(address)).toBeUndefined();
  });

  it.each(nonPublicAddresses)('is false for %s (%s)', (address, range) => {
    expect(isPublicAddress(address)).toBe(false);
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each(notAddresses)('is false for %j, which is no address Node would dial', (text) => {
    expect(isPublicAddress(text)).toBe(false);
    expect(nonPublicRange(text)).toBe('not an IP address');
  });

  const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
  const hex = ([a, b, c, d]: readonly number[]) =>
    `${(((a ?? 0) << 8) | (b ?? 0)).toString(16)}:${(((c ?? 0) << 8) | (d ?? 0)).toString(16)}`;

  it('judges every IPv4-mapped form as the IPv4 address inside', () => {
    fc.assert(
      fc.property(v4, (octets) => {
        const dotted = octets.join('.');
        const expected = isPublicAddress(dotted);
        expect(isPublicAddress(`::ffff:${dotted}`)).toBe(expected);
        expect(isPublicAddress(`::ffff:${hex(octets)}`)).toBe(expected);
        expect(isPublicAddress(`0:0:0:0:0:ffff:${dotted}`)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('judges an IPv6 address the same in every spelling (dotted tail, upper case, uncompressed)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }), (parts) => {
        const full = parts.map((p) => p.toString(16)).join(':');
        const canonical = new URL(`http://[${full}]/`).hostname.slice(1, -1);
        const [g = 0, h = 0] = parts.slice(6);
        const dotted = `${parts
          .slice(0, 6)
          .map((p) => p.toString(16))
          .join(':')}:${[g >> 8, g & 0xff, h >> 8, h & 0xff].join('.')}`;
        const expected = isPublicAddress(canonical);
        expect(isPublicAddress(full)).toBe(expected);
        expect(isPublicAddress(full.toUpperCase())).toBe(expected);
        expect(isPublicAddress(dotted)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('judges NAT64 addresses (64:ff9b::/96 and 64:ff9b:1::/96) as the IPv4 address inside', () => {
    fc.assert(
      fc.property(v4, (octets) => {
        const expected = isPublicAddress(octets.join('.'));
        expect(isPublicAddress(`64:ff9b::${hex(octets)}`)).toBe(expected);
        expect(isPublicAddress(`64:ff9b:1::${hex(octets)}`)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('never calls an address in a refused IPv4 block public, wherever inside the block', () => {
    // [network as a 32-bit number, prefix length]
    const blocks: readonly (readonly [number, number])[] = [
      [0x00000000, 8],
      [0x0a000000, 8],
      [0x64400000, 10],
      [0x7f000000, 8],
      [0xa9fe0000, 16],
      [0xac100000, 12],
      [0xc0000000, 24],
      [0xc0000200, 24],
      [0xc0a80000, 16],
      [0xc6120000, 15],
      [0xc6336400, 24],
      [0xcb007100, 24],
      [0xe0000000, 4],
      [0xf0000000, 4],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...blocks), fc.nat(), ([base, length], offset) => {
        const value = (base + (offset % 2 ** (32 - length))) >>> 0;
        const dotted = [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
        expect(isPublicAddress(dotted)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('checkWebhookUrl', () => {
  it('accepts an https URL and returns it parsed', () => {
    const checked = checkWebhookUrl('https://hooks.example.com:8443/in?x=1', strict);
    expect(E.isRight(checked) && checked.right.href).toBe('https://hooks.example.com:8443/in?x=1');
  });

  it('accepts http only with allowHttp', () => {
    expect(checkWebhookUrl('http://hooks.example.com/', strict)).toEqual(
      E.left('the URL must use https (http is allowed only with WEBHOOK_ALLOW_HTTP=true)'),
    );
    expect(E.isRight(checkWebhookUrl('http://hooks.example.com/', { allowHttp: true, allowPrivate: false }))).toBe(
      true,
    );
  });

  it.each([
    'ftp://example.com/',
    'ws://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/plain,hi',
  ])('refuses the scheme of %s', (url) => {
    const checked = checkWebhookUrl(url, open);
    expect(E.isLeft(checked) && checked.left).toMatch(/^the URL must use https or http, not "[a-z]+"$/);
  });

  it('refuses credentials without echoing them', () => {
    for (const url of [
      'https://user:hunter2@example.com/',
      'https://user@example.com/',
      'https://:hunter2@example.com/',
    ]) {
      const checked = checkWebhookUrl(url, open);
      expect(checked).toEqual(E.left('the URL must not carry credentials (a user name or password before the host)'));
    }
  });

  it.each([
    '',
    'example.com/hook',
    '/hook',
    'https://',
    'https://exa mple.com/',
    'http://[::1/',
    'https://user:hunter2@/',
  ])('refuses %j as not an absolute URL, echoing nothing', (url) => {
    expect(checkWebhookUrl(url, open)).toEqual(E.left('the URL is not a valid absolute URL'));
  });

  it('leaves address checks to resolveWebhookAddress (a private IP literal passes the syntax check)', () => {
    expect(E.isRight(checkWebhookUrl('https://127.0.0.1/', strict))).toBe(true);
  });
});

const fixed =
  (...answers: readonly string[]): LookupAll =>
  async () =>
    answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
const url = (text: string) => new URL(text);

describe('resolveWebhookAddress', () => {
  const failIfCalled: LookupAll = () => {
    throw new Error('lookup must not be called for an IP literal');
  };

  it('uses IP literals without DNS', async () => {
    await expect(resolveWebhookAddress(url('https://8.8.8.8/'), strict, failIfCalled)).resolves.toEqual(
      E.right({ address: '8.8.8.8', family: 4 }),
    );
    await expect(
      resolveWebhookAddress(url('https://[2606:4700:4700::1111]:8443/'), strict, failIfCalled),
    ).resolves.toEqual(E.right({ address: '2606:4700:4700::1111', family: 6 }));
    await expect(resolveWebhookAddress(url('http://127.0.0.1:9/'), open, failIfCalled)).resolves.toEqual(
      E.right({ address: '127.0.0.1', family: 4 }),
    );
    await expect(resolveWebhookAddress(url('http://[::1]:9/'), open, failIfCalled)).resolves.toEqual(
      E.right({ address: '::1', family: 6 }),
    );
  });

  it('refuses private IP literals, including spellings the URL parser normalises', async () => {
    await expect(resolveWebhookAddress(url('https://127.0.0.1/'), strict, failIfCalled)).resolves.toEqual(
      E.left('127.0.0.1 is not a public address (loopback)'),
    );
    await expect(resolveWebhookAddress(url('https://0x7f.1/'), strict, failIfCalled)).resolves.toEqual(
      E.left('127.0.0.1 is not a public address (loopback)'),
    );
    await expect(resolveWebhookAddress(url('https://2130706433/'), strict, failIfCalled)).resolves.toEqual(
      E.left('127.0.0.1 is not a public address (loopback)'),
    );
    await expect(
      resolveWebhookAddress(url('https://[::ffff:169.254.169.254]/'), strict, failIfCalled),
    ).resolves.toEqual(E.left('::ffff:a9fe:a9fe is not a public address (IPv4-mapped link-local)'));
    await expect(resolveWebhookAddress(url('https://[::]/'), strict, failIfCalled)).resolves.toEqual(
      E.left(':: is not a public address (unspecified)'),
    );
  });

  it('resolves a name and answers the first address when every one is public', async () => {
    const answer = await resolveWebhookAddress(
      url('https://hooks.example.com/'),
      strict,
      fixed('2606:4700:4700::1111', '1.1.1.1'),
    );
    expect(answer).toEqual(E.right({ address: '2606:4700:4700::1111', family: 6 }));
  });

  it('passes the host name, without port or brackets, to lookup', async () => {
    const asked: string[] = [];
    await resolveWebhookAddress(url('https://Hooks.Example.COM:8443/x'), strict, async (host) => {
      asked.push(host);
      return [{ address: '1.1.1.1', family: 4 }];
    });
    expect(asked).toEqual(['hooks.example.com']);
  });

  it('refuses a name when any one of its addresses is not public', async () => {
    await expect(resolveWebhookAddress(url('https://example.internal/'), strict, fixed('10.0.0.5'))).resolves.toEqual(
      E.left('example.internal resolves to 10.0.0.5, a private address (private-use)'),
    );
    await expect(
      resolveWebhookAddress(url('https://mixed.example/'), strict, fixed('8.8.8.8', '127.0.0.1')),
    ).resolves.toEqual(E.left('mixed.example resolves to 127.0.0.1, a private address (loopback)'));
    await expect(
      resolveWebhookAddress(url('https://mapped.example/'), strict, fixed('::ffff:10.1.2.3')),
    ).resolves.toEqual(
      E.left('mapped.example resolves to ::ffff:10.1.2.3, a private address (IPv4-mapped private-use)'),
    );
  });

  it('allows private answers with allowPrivate', async () => {
    await expect(resolveWebhookAddress(url('http://localhost:1/'), open, fixed('127.0.0.1', '::1'))).resolves.toEqual(
      E.right({ address: '127.0.0.1', family: 4 }),
    );
  });

  it('refuses a name that does not resolve, and never throws', async () => {
    const notFound: LookupAll = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    await expect(resolveWebhookAddress(url('https://nowhere.invalid/'), strict, notFound)).resolves.toEqual(
      E.left('nowhere.invalid does not resolve (ENOTFOUND)'),
    );
    const throwsSync: LookupAll = () => {
      throw new Error('boom');
    };
    await expect(resolveWebhookAddress(url('https://x.example/'), strict, throwsSync)).resolves.toEqual(
      E.left('x.example does not resolve (boom)'),
    );
    await expect(resolveWebhookAddress(url('https://empty.example/'), strict, fixed())).resolves.toEqual(
      E.left('empty.example does not resolve (no addresses)'),
    );
    await expect(resolveWebhookAddress(url('https://odd.example/'), open, fixed('not-an-ip'))).resolves.toEqual(
      E.left('odd.example resolves to something that is not an IP address'),
    );
  });

  it('resolves real names with the system resolver by default', async () => {
    await expect(resolveWebhookAddress(url('http://localhost:1/'), strict)).resolves.toSatisfy(
      (e: E.Either<string, unknown>) => E.isLeft(e) && /^localhost resolves to .*loopback\)$/.test(e.left),
    );
  });
});
