import { afterEach, describe, expect, it } from 'vitest';
import type { LookupAll } from '../../src/webhooks/address-policy.js';
import {
  MAX_RESPONSE_BODY_BYTES,
  WebhookSender,
  type AttemptOutcome,
  type WebhookSenderOptions,
} from '../../src/webhooks/webhook-sender.js';
import { answer, closedPort, startReceiver, type Handler, type Receiver, type ReceiverOptions } from './receiver.js';
import { testCert, testKey } from './self-signed-cert.js';

const local = { allowHttp: true, allowPrivate: true } as const;
const strict = { allowHttp: false, allowPrivate: false } as const;

const receivers: Receiver[] = [];
const senders: WebhookSender[] = [];

afterEach(async () => {
  for (const sender of senders.splice(0)) sender.close();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const receiver = async (handler: Handler = answer(204), options?: ReceiverOptions) => {
  const r = await startReceiver(handler, options);
  receivers.push(r);
  return r;
};

const sender = (options: Partial<WebhookSenderOptions> = {}) => {
  const s = new WebhookSender({ timeoutMs: 2_000, policy: local, ...options });
  senders.push(s);
  return s;
};

const body =
  '{"type":"plant.created","timestamp":"2026-01-02T03:04:05.678Z","data":{"id":7,"name":"Fougère 🌿","tag":"a\\"b"}}';
const headers = {
  'webhook-id': 'msg_2hYkQ7',
  'webhook-timestamp': '1767323045',
  'webhook-signature': 'v1,c2lnbmF0dXJl',
  'user-agent': 'plant-store-webhooks/0.1.0',
};
const attempt = (url: string) => ({ url, body, headers });
const urlOf = (r: Receiver, path = '/hooks/in') => `http://${r.host}:${r.port}${path}`;

/** A lookup that answers from a script, one answer list per call (the last one repeats), and counts its calls. */
const scripted = (...answers: readonly (readonly string[])[]) => {
  const asked: string[] = [];
  const lookup: LookupAll = async (hostname) => {
    asked.push(hostname);
    const list = answers[Math.min(asked.length, answers.length) - 1] ?? [];
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, asked };
};

const failed = (outcome: AttemptOutcome) => {
  if (outcome.kind !== 'failed') throw new Error(`expected a failed attempt, got ${JSON.stringify(outcome)}`);
  return outcome;
};

describe('WebhookSender.send', () => {
  it('POSTs the body byte for byte with the given headers plus content-type and content-length: delivered on a 2xx', async () => {
    const r = await receiver(answer(200));
    const outcome = await sender().send(attempt(`${urlOf(r)}?channel=plants&x=%C3%A9`));
    expect(outcome).toEqual({ kind: 'delivered', status: 200, durationMs: expect.any(Number) });
    expect(outcome.durationMs).toBeGreaterThan(0);
    expect(r.received).toHaveLength(1);
    const [got] = r.received;
    expect(got?.method).toBe('POST');
    expect(got?.url).toBe('/hooks/in?channel=plants&x=%C3%A9');
    expect(got?.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(got?.headers).toMatchObject({
      ...headers,
      host: `127.0.0.1:${r.port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
  });

  it.each([201, 202, 204, 299])('counts %s as delivered', async (status) => {
    const r = await receiver(answer(status));
    await expect(sender().send(attempt(urlOf(r)))).resolves.toMatchObject({ kind: 'delivered', status });
  });

  it.each([
    [400, 'HTTP 400'],
    [401, 'HTTP 401'],
    [404, 'HTTP 404'],
    [500, 'HTTP 500'],
    [502, 'HTTP 502'],
    [300, 'HTTP 300 (redirects are not followed)'],
  ])('fails on %s with status and reason', async (status, error) => {
    const r = await receiver(answer(status));
    const outcome = failed(await sender().send(attempt(urlOf(r))));
    expect(outcome).toEqual({ kind: 'failed', status, error, gone: false, durationMs: expect.any(Number) });
  });

  it('marks 410 as gone', async () => {
    const r = await receiver(answer(410));
    expect(await sender().send(attempt(urlOf(r)))).toEqual({
      kind: 'failed',
      status: 410,
      error: 'HTTP 410',
      gone: true,
      durationMs: expect.any(Number),
    });
  });

  it.each([301, 302, 303, 307, 308])('does not follow a %s redirect', async (status) => {
    const target = await receiver(answer(200));
    const r = await receiver(answer(status, { location: urlOf(target, '/elsewhere') }));
    const outcome = failed(await sender().send(attempt(urlOf(r))));
    expect(outcome).toMatchObject({ status, error: `HTTP ${status} (redirects are not followed)`, gone: false });
    // A followed redirect would have connected before send resolved; this is a margin for that proof.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.connections()).toBe(0);
  });

  describe('Retry-After', () => {
    it.each([429, 503])('reads delta seconds on a %s', async (status) => {
      const r = await receiver(answer(status, { 'retry-after': '120' }));
      expect(failed(await sender().send(attempt(urlOf(r))))).toMatchObject({ status, retryAfterMs: 120_000 });
    });

    it.each([429, 503])('reads an HTTP-date on a %s', async (status) => {
      const r = await receiver((_req, res) => {
        res.writeHead(status, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() });
        res.end();
      });
      const outcome = failed(await sender().send(attempt(urlOf(r))));
      expect(outcome.retryAfterMs).toBeGreaterThan(58_000);
      expect(outcome.retryAfterMs).toBeLessThanOrEqual(60_000);
    });

    it('caps it at 24 h', async () => {
      const r = await receiver(answer(503, { 'retry-after': '999999' }));
      expect(failed(await sender().send(attempt(urlOf(r)))).retryAfterMs).toBe(86_400_000);
    });

    it('ignores it on any other status, and when invalid or past', async () => {
      for (const [status, value] of [
        [500, '120'],
        [410, '120'],
        [302, '120'],
        [429, 'soon'],
        [503, 'Thu, 01 Jan 2015 00:00:00 GMT'],
      ] as const) {
        const r = await receiver(answer(status, { 'retry-after': value }));
        const outcome = failed(await sender().send(attempt(urlOf(r))));
        expect(outcome).not.toHaveProperty('retryAfterMs');
      }
    });
  });

  describe('time limits', () => {
    it('fails when the status line and headers do not arrive within timeoutMs', async () => {
      const r = await receiver(() => {
        /* never answers */
      });
      const outcome = failed(await sender({ timeoutMs: 300 }).send(attempt(urlOf(r, '/in?token=s3cret'))));
      expect(outcome.error).toBe(
        `timed out after 300 ms waiting for the response headers (http://127.0.0.1:${r.port})`,
      );
      expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
      expect(outcome.durationMs).toBeLessThan(1_500);
      expect(outcome).not.toHaveProperty('status');
      expect(r.received).toHaveLength(1);
    });

    it('counts the name lookup in the time limit', async () => {
      const hanging: LookupAll = () => new Promise(() => undefined);
      const outcome = failed(
        await sender({ timeoutMs: 200, lookup: hanging }).send(attempt('http://slow-dns.test/hook')),
      );
      expect(outcome.error).toBe('timed out after 200 ms resolving the host (http://slow-dns.test)');
      expect(outcome.durationMs).toBeLessThan(1_500);
    });

    it('is delivered when 200 and its headers come in time though the body never ends, without waiting past the limit', async () => {
      const r = await receiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.flushHeaders();
        const drip = setInterval(() => res.write('x'), 20);
        res.on('close', () => clearInterval(drip));
      });
      const outcome = await sender({ timeoutMs: 400 }).send(attempt(urlOf(r)));
      expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(390);
      expect(outcome.durationMs).toBeLessThan(1_500);
      // The unfinished answer's connection is dropped, not pooled.
      await expect.poll(() => r.open()).toBe(0);
    });

    it('reads at most 64 KiB of an answer, then drops the connection (still delivered, no wait)', async () => {
      let sent = 0;
      const r = await receiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(16 * 1024, 97);
        const pump = () => {
          while (sent < 50 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
          if (sent < 50 * 1024 * 1024) res.once('drain', pump);
          else res.end();
        };
        res.on('error', () => undefined);
        pump();
      });
      const outcome = await sender({ timeoutMs: 5_000 }).send(attempt(urlOf(r)));
      expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
      expect(outcome.durationMs).toBeLessThan(2_000);
      expect(sent).toBeLessThan(50 * 1024 * 1024);
      await expect.poll(() => r.open()).toBe(0);
      expect(MAX_RESPONSE_BODY_BYTES).toBe(65_536);
    });

    it('reads a small answer to its end and keeps the connection for the next attempt', async () => {
      const r = await receiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(60 * 1024));
      });
      const s = sender();
      for (let i = 0; i < 5; i += 1)
        await expect(s.send(attempt(urlOf(r)))).resolves.toMatchObject({ kind: 'delivered' });
      expect(r.connections()).toBe(1);
    });
  });

  describe('connection failures', () => {
    it('fails with a short reason naming the origin only, never path or query', async () => {
      const port = await closedPort();
      const outcome = failed(await sender().send(attempt(`http://127.0.0.1:${port}/hooks?token=s3cret`)));
      expect(outcome).toEqual({
        kind: 'failed',
        error: `ECONNREFUSED from http://127.0.0.1:${port}`,
        gone: false,
        durationMs: expect.any(Number),
      });
    });

    it('fails when the receiver drops the connection without answering', async () => {
      const r = await receiver((req) => req.socket.destroy());
      expect(failed(await sender().send(attempt(urlOf(r)))).error).toBe(`ECONNRESET from http://127.0.0.1:${r.port}`);
    });

    it('sends once more on a new connection when a kept-alive one was closed under it', async () => {
      const served = new WeakSet<object>();
      const r = await receiver((req, res) => {
        // A second request on a connection: the receiver had just given it up.
        if (served.has(req.socket)) {
          req.socket.destroy();
          return;
        }
        served.add(req.socket);
        res.writeHead(200);
        res.end();
      });
      const s = sender();
      await expect(s.send(attempt(urlOf(r)))).resolves.toMatchObject({ kind: 'delivered' });
      await expect(s.send(attempt(urlOf(r)))).resolves.toMatchObject({ kind: 'delivered' });
      expect(r.received).toHaveLength(3);
      expect(r.connections()).toBe(2);
    });

    it('fails, without throwing, on a header it cannot send', async () => {
      const r = await receiver(answer(200));
      const outcome = failed(await sender().send({ url: urlOf(r), body, headers: { ...headers, 'x-bad': 'a\r\nb' } }));
      expect(outcome.error).toBe('invalid request (ERR_INVALID_CHAR)');
      expect(r.connections()).toBe(0);
    });

    it('fails on a name that does not resolve', async () => {
      const outcome = failed(await sender().send(attempt('http://nowhere.invalid/hook')));
      expect(outcome.error).toMatch(/^URL refused: nowhere\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\)$/);
    });
  });

  describe('URL and address checks at every attempt', () => {
    it('refuses a private address without connecting when allowPrivate is false', async () => {
      const r = await receiver(answer(200));
      const s = sender({ policy: { allowHttp: true, allowPrivate: false } });
      expect(await s.send(attempt(urlOf(r)))).toEqual({
        kind: 'failed',
        error: 'URL refused: 127.0.0.1 is not a public address (loopback)',
        gone: false,
        durationMs: expect.any(Number),
      });
      const { lookup } = scripted(['127.0.0.1']);
      const byName = failed(
        await sender({ policy: { allowHttp: true, allowPrivate: false }, lookup }).send(
          attempt(`http://hooks.test:${r.port}/`),
        ),
      );
      expect(byName.error).toBe('URL refused: hooks.test resolves to 127.0.0.1, a private address (loopback)');
      // A connection would have been made before send resolved; this is a margin for that proof.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(r.connections()).toBe(0);
    });

    it('refuses a name when any of its addresses is private', async () => {
      const r = await receiver(answer(200));
      const { lookup } = scripted(['93.184.216.34', '127.0.0.1']);
      const outcome = failed(
        await sender({ policy: { allowHttp: true, allowPrivate: false }, lookup }).send(
          attempt(`http://hooks.test:${r.port}/`),
        ),
      );
      expect(outcome.error).toBe('URL refused: hooks.test resolves to 127.0.0.1, a private address (loopback)');
      expect(r.connections()).toBe(0);
    });

    it('refuses http when allowHttp is false, without connecting', async () => {
      const r = await receiver(answer(200));
      const outcome = failed(
        await sender({ policy: { allowHttp: false, allowPrivate: true } }).send(attempt(urlOf(r))),
      );
      expect(outcome.error).toBe(
        'URL refused: the URL must use https (http is allowed only with WEBHOOK_ALLOW_HTTP=true)',
      );
      expect(r.connections()).toBe(0);
    });

    it('refuses credentials in the URL without showing them', async () => {
      const r = await receiver(answer(200));
      const outcome = failed(await sender().send(attempt(`http://user:hunter2@127.0.0.1:${r.port}/`)));
      expect(outcome.error).toBe(
        'URL refused: the URL must not carry credentials (a user name or password before the host)',
      );
      expect(JSON.stringify(outcome)).not.toContain('hunter2');
      expect(r.connections()).toBe(0);
    });

    it('refuses a URL that does not parse', async () => {
      expect(failed(await sender({ policy: strict }).send(attempt('not a url'))).error).toBe(
        'URL refused: the URL is not a valid absolute URL',
      );
    });

    it('connects to the address it checked, and resolves again at each attempt (DNS rebinding)', async () => {
      // Two receivers on one port, on 127.0.0.1 and 127.0.0.2. The name resolves to the first, then the second.
      const first = await receiver(answer(200));
      const second = await receiver(answer(200), { host: '127.0.0.2', port: first.port });
      const { lookup, asked } = scripted(['127.0.0.1'], ['127.0.0.2']);
      const s = sender({ lookup });
      const url = `http://rebind.test:${first.port}/hook`;

      await expect(s.send(attempt(url))).resolves.toMatchObject({ kind: 'delivered' });
      // One lookup (ours): the connection went to its answer, and no second resolution (the system
      // resolver knows no rebind.test) happened between the check and the connect.
      expect(asked).toEqual(['rebind.test']);
      expect(first.received.map((got) => [got.localAddress, got.headers.host])).toEqual([
        ['127.0.0.1', `rebind.test:${first.port}`],
      ]);
      expect(second.received).toEqual([]);

      await expect(s.send(attempt(url))).resolves.toMatchObject({ kind: 'delivered' });
      expect(asked).toEqual(['rebind.test', 'rebind.test']);
      expect(second.received.map((got) => got.localAddress)).toEqual(['127.0.0.2']);
      expect(first.received).toHaveLength(1);
    });

    it('connects to the first address when the name has several', async () => {
      const first = await receiver(answer(200));
      const second = await receiver(answer(200), { host: '127.0.0.2', port: first.port });
      const { lookup } = scripted(['127.0.0.2', '127.0.0.1']);
      await expect(sender({ lookup }).send(attempt(`http://multi.test:${first.port}/`))).resolves.toMatchObject({
        kind: 'delivered',
      });
      expect(second.received).toHaveLength(1);
      expect(first.received).toHaveLength(0);
    });

    it('uses no proxy, whatever the environment says', async () => {
      const proxy = await receiver(answer(200));
      const r = await receiver(answer(204));
      const saved = { ...process.env };
      const proxyUrl = `http://127.0.0.1:${proxy.port}`;
      Object.assign(process.env, {
        HTTP_PROXY: proxyUrl,
        http_proxy: proxyUrl,
        HTTPS_PROXY: proxyUrl,
        https_proxy: proxyUrl,
        ALL_PROXY: proxyUrl,
        NO_PROXY: '',
      });
      try {
        await expect(sender().send(attempt(urlOf(r)))).resolves.toMatchObject({ kind: 'delivered', status: 204 });
      } finally {
        for (const key of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'NO_PROXY']) {
          if (saved[key] === undefined) delete process.env[key];
          else process.env[key] = saved[key];
        }
      }
      expect(proxy.connections()).toBe(0);
      expect(r.received).toHaveLength(1);
    });
  });

  describe('https', () => {
    const tls = { key: testKey, cert: testCert };

    it('fails on a certificate no CA vouches for (self-signed), sending the host name as SNI', async () => {
      const r = await receiver(answer(200), { tls });
      const { lookup } = scripted(['127.0.0.1']);
      const outcome = failed(await sender({ lookup }).send(attempt(`https://hooks.test:${r.port}/hook`)));
      expect(outcome.error).toMatch(
        new RegExp(
          `^TLS error \\((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\\) with https://hooks\\.test:${r.port}$`,
        ),
      );
      expect(r.serverNames).toEqual(['hooks.test']);
      expect(r.received).toEqual([]);
    });

    it('delivers to a trusted certificate: connects to the checked IP, checks the certificate against the host name', async () => {
      const r = await receiver(answer(200), { tls });
      const { lookup } = scripted(['127.0.0.1']);
      await expect(
        sender({ lookup, ca: testCert }).send(attempt(`https://hooks.test:${r.port}/hook`)),
      ).resolves.toMatchObject({ kind: 'delivered', status: 200 });
      expect(r.serverNames).toEqual(['hooks.test']);
      expect(r.received.map((got) => got.headers.host)).toEqual([`hooks.test:${r.port}`]);
    });

    it('checks the certificate against the host name, not the address connected to', async () => {
      const r = await receiver(answer(200), { tls });
      // The certificate names 127.0.0.1, but not other.test: connecting to 127.0.0.1 must not make it pass.
      const { lookup } = scripted(['127.0.0.1']);
      const outcome = failed(await sender({ lookup, ca: testCert }).send(attempt(`https://other.test:${r.port}/hook`)));
      expect(outcome.error).toBe(`TLS error (ERR_TLS_CERT_ALTNAME_INVALID) with https://other.test:${r.port}`);
      expect(r.received).toEqual([]);
    });

    it('checks an IP-literal URL against the IP, with no SNI', async () => {
      const r = await receiver(answer(200), { tls });
      await expect(sender({ ca: testCert }).send(attempt(`https://127.0.0.1:${r.port}/hook`))).resolves.toMatchObject({
        kind: 'delivered',
      });
      expect(r.serverNames).toEqual([]);
    });
  });

  describe('keep-alive and many attempts', () => {
    it('keeps connections per address, at most maxSocketsPerAddress of them, for many concurrent attempts', async () => {
      const r = await receiver(answer(204));
      // Waiting for a free connection counts in the time limit: a generous one, for a busy test
      // machine. How many a second it sends is measured by the bench, not asserted here.
      const s = sender({ maxSocketsPerAddress: 8, timeoutMs: 30_000 });
      const outcomes = await Promise.all(Array.from({ length: 2_000 }, () => s.send(attempt(urlOf(r)))));
      expect(outcomes.filter((o) => o.kind !== 'delivered')).toEqual([]);
      expect(r.received).toHaveLength(2_000);
      expect(r.connections()).toBeLessThanOrEqual(8);
    });

    it('never rejects, whatever the request', async () => {
      const s = sender({ policy: strict });
      const outcomes = await Promise.all(
        ['', 'https://', 'https://[::1]/', 'mailto:a@b.c', 'https://0.0.0.0/'].map((url) => s.send(attempt(url))),
      );
      expect(outcomes.map((o) => o.kind)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
    });
  });

  describe('close', () => {
    it('closes idle connections, lets in-flight attempts finish, and keeps no connection afterwards', async () => {
      const r = await receiver((req, res) => {
        setTimeout(
          () => {
            res.writeHead(200);
            res.end();
          },
          req.url === '/slow' ? 500 : 20,
        );
      });
      const s = sender();
      // Two connections, both idle afterwards; the slow attempt takes one of them.
      await Promise.all([s.send(attempt(urlOf(r, '/fast'))), s.send(attempt(urlOf(r, '/fast')))]);
      expect(r.open()).toBe(2);
      const inFlight = s.send(attempt(urlOf(r, '/slow')));
      await expect.poll(() => r.received.length).toBe(3);
      s.close();
      await expect.poll(() => r.open()).toBe(1);
      await expect(inFlight).resolves.toMatchObject({ kind: 'delivered', status: 200 });
      await expect.poll(() => r.open()).toBe(0);
      expect(r.connections()).toBe(2);
    });
  });

  it('refuses options that make no sense', () => {
    expect(() => new WebhookSender({ timeoutMs: 0, policy: local })).toThrow(TypeError);
    expect(() => new WebhookSender({ timeoutMs: 1.5, policy: local })).toThrow(TypeError);
    expect(() => new WebhookSender({ timeoutMs: 100, policy: local, maxSocketsPerAddress: 0 })).toThrow(TypeError);
  });
});
