import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { setImmediate as turn } from 'node:timers/promises';
import type { PlantId } from '@plant-store/domain';
import { until } from '@plant-store/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeBatch, entryOf, type ChangeEntry } from '../../src/changes/change-hub.js';
import { ChangeStream } from '../../src/http/change-stream.js';
import type { Change } from '../../src/ports/change-log.js';

/*
 * One stream's answer on a real socket (the hub and the routes are in test/http/changes.test.ts):
 * its chunked framing, and the buffer bound (CHANGES_MAX_BUFFER_BYTES) that ends a stream whose
 * client does not read, but never one that does.
 */

const MAX_BUFFER = 64 * 1024;

const entries = (from: number, count: number): ChangeEntry[] =>
  Array.from({ length: count }, (_, i) =>
    entryOf({
      seq: from + i + 1,
      at: Date.now(),
      id: (from + i + 1) as PlantId,
      type: 'plant.created',
      name: `plant ${from + i + 1} ${'x'.repeat(180)}`,
      version: 1,
    } as Change),
  );

/** A chunked HTTP/1.1 body decoded; `complete` when it ended with the last chunk. */
const dechunk = (raw: Buffer): { readonly body: string; readonly complete: boolean } => {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const parts: Buffer[] = [];
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) return { body: Buffer.concat(parts).toString(), complete: false };
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (size === 0) return { body: Buffer.concat(parts).toString(), complete: true };
    if (raw.length < eol + 4 + size) return { body: Buffer.concat(parts).toString(), complete: false };
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    expect(raw.subarray(eol + 2 + size, eol + 4 + size).toString('latin1')).toBe('\r\n');
    at = eol + 4 + size;
  }
};

interface Open {
  readonly stream: ChangeStream;
  readonly client: net.Socket;
  readonly received: () => Buffer;
  readonly ends: () => number;
  readonly serverSocket: () => net.Socket | null;
}

let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server whose one answer is a ChangeStream from 0, and a raw client of it (reading, or paused). */
const open = async (reading: boolean): Promise<Open> => {
  let ends = 0;
  let res: http.ServerResponse | undefined;
  const opened = new Promise<ChangeStream>((resolve) => {
    server = http.createServer((_req, response) => {
      res = response;
      const stream = new ChangeStream(response, 0, {
        heartbeatMs: 15_000,
        maxBufferBytes: MAX_BUFFER,
        onEnd: () => void (ends += 1),
      });
      stream.open([]);
      resolve(stream);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server?.address() as AddressInfo;
  const client = net.connect(port, '127.0.0.1');
  const parts: Buffer[] = [];
  client.on('data', (part: Buffer) => void parts.push(part));
  client.on('error', () => undefined);
  client.write('GET /plants/changes HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n\r\n');
  const stream = await opened;
  if (!reading) client.pause();
  return {
    stream,
    client,
    received: () => Buffer.concat(parts),
    ends: () => ends,
    serverSocket: () => res?.socket ?? null,
  };
};

describe('ChangeStream', () => {
  it('writes chunked events, a batch larger than the buffer bound whole to a client that reads, and ends cleanly', async () => {
    const { stream, received, ends } = await open(true);
    const big = entries(0, 800); // about 200 KB, three times the bound
    const batch = new ChangeBatch(0, big);
    stream.deliver(batch);
    const tail = entries(800, 1);
    stream.deliver(new ChangeBatch(800, tail));
    await turn();
    await turn();
    expect(ends()).toBe(0);
    stream.end();
    await until('the last chunk', () => dechunk(received()).complete);
    const head = received().subarray(0, received().indexOf('\r\n\r\n')).toString('latin1');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toMatch(/\r\nTransfer-Encoding: chunked(\r\n|$)/i);
    expect(head).toMatch(/\r\nContent-Type: text\/event-stream(\r\n|$)/i);
    expect(dechunk(received()).body).toBe(`retry: 2000\n\n${[...big, ...tail].map((entry) => entry.event).join('')}`);
    expect(stream.position).toBe(801);
    expect(ends()).toBe(1);
  });

  it('ends the stream of a client that leaves more than the bound unread', async () => {
    const { stream, ends, serverSocket } = await open(false);
    let position = 0;
    for (let batches = 0; ends() === 0 && batches < 2000; batches++) {
      stream.deliver(new ChangeBatch(position, entries(position, 100)));
      position += 100;
      await turn();
    }
    expect(ends()).toBe(1);
    await until('the socket to close', () => serverSocket()?.destroyed !== false);
    expect(stream.position).toBe(position);
    stream.deliver(new ChangeBatch(position, entries(position, 1)));
    expect(stream.position).toBe(position);
  });
});
