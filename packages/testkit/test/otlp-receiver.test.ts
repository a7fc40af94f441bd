import type { Attributes as OtelAttributes } from '@opentelemetry/api';
import {
  TracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import {
  byName,
  encodings,
  exportSpans,
  FAILED,
  finishedScenario,
  nanos,
  recordScenario,
  resource,
  SECRET,
  SUCCESS,
  useOtlp,
  type ExporterConfig,
} from './fixtures/otel-scenario.js';

const { receiver, exporterFor } = useOtlp();

const post = (url: string, contentType: string, body: string | Buffer): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('startOtlpReceiver', () => {
  describe.each(encodings)('with the official $protocol exporter', (encoding) => {
    it('decodes parent, child, link, event, attributes, status, resource and scope', async () => {
      const otlp = await receiver();
      const memory = new InMemorySpanExporter();
      const provider = new TracerProvider({
        resource,
        spanProcessors: [
          new SimpleSpanProcessor({ exporter: memory }),
          new BatchSpanProcessor({ exporter: exporterFor(encoding, { url: otlp.tracesUrl }) }),
        ],
      });
      recordScenario(provider);
      await provider.forceFlush();

      expect(otlp.requests().map((r) => [r.contentType, r.status, r.spanCount])).toEqual([
        [encoding.contentType, 200, 3],
      ]);
      const spans = otlp.spans();
      const sdk = (name: string) => memory.getFinishedSpans().find((span) => span.name === name) as ReadableSpan;
      const job = byName(spans, 'enqueue watering');
      const request = byName(spans, 'GET /plants');
      const query = byName(spans, 'select plants');

      expect(request).toEqual({
        traceId: sdk('GET /plants').spanContext().traceId,
        spanId: sdk('GET /plants').spanContext().spanId,
        name: 'GET /plants',
        kind: 'SERVER',
        startTimeUnixNano: nanos(sdk('GET /plants').startTime),
        endTimeUnixNano: nanos(sdk('GET /plants').endTime),
        attributes: {
          'http.request.method': 'GET',
          'http.response.status_code': 500,
          'plant.ratio': 0.25,
          'plant.cached': false,
          'plant.tags': ['fern', 'moss'],
          'plant.sizes': [1, 2, 3],
          'plant.note': SECRET,
        },
        events: [],
        links: [],
        status: { code: 'UNSET' },
        resource: expect.objectContaining({ 'service.name': 'plant-store-test', 'service.version': '9.9.9' }),
        scope: { name: 'plant-store-test-scope', version: '1.2.3' },
      });
      expect(request).not.toHaveProperty('parentSpanId');
      expect(query).toMatchObject({
        traceId: request.traceId,
        parentSpanId: request.spanId,
        kind: 'CLIENT',
        attributes: {},
        events: [
          {
            name: 'rows read',
            timeUnixNano: nanos(sdk('select plants').events[0]!.time),
            attributes: { 'rows.count': 3 },
          },
        ],
        links: [{ traceId: job.traceId, spanId: job.spanId, attributes: { 'link.reason': 'waters' } }],
        status: { code: 'ERROR', message: 'disk full' },
      });
      expect(job).toMatchObject({ kind: 'PRODUCER', events: [], links: [] });
      expect(job.traceId).not.toBe(request.traceId);
      expect([query.startTimeUnixNano, query.endTimeUnixNano]).toEqual([
        nanos(sdk('select plants').startTime),
        nanos(sdk('select plants').endTime),
      ]);
    });

    it('keeps the gunzipped request bodies, which contain the attribute values', async () => {
      const otlp = await receiver();
      const exporter = exporterFor(encoding, {
        url: otlp.tracesUrl,
        compression: 'gzip' as NonNullable<ExporterConfig['compression']>,
      });
      expect(await exportSpans(exporter, finishedScenario())).toEqual({ code: SUCCESS });

      expect(otlp.requests()).toMatchObject([{ contentEncoding: 'gzip', status: 200, spanCount: 3 }]);
      expect(otlp.rawBodies()).toHaveLength(1);
      expect(otlp.rawBodies()[0]!.includes(SECRET)).toBe(true);
    });

    it('answers only after delayMs, so an exporter with a shorter timeout fails', async () => {
      const otlp = await receiver({ delayMs: 1_000 });
      const exporter = exporterFor(encoding, { url: otlp.tracesUrl, timeoutMillis: 200 });
      const started = Date.now();
      const result = await exportSpans(exporter, finishedScenario());

      expect(result.code).toBe(FAILED);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(otlp.requests()).toHaveLength(1);

      otlp.setBehaviour({ delayMs: 0 });
      expect(await exportSpans(exporter, finishedScenario())).toEqual({ code: SUCCESS });
    });

    it('answers the status set, keeps no spans of a refused export, and the exporter retries', async () => {
      const otlp = await receiver({ status: 503 });
      const exporter = exporterFor(encoding, { url: otlp.tracesUrl, timeoutMillis: 10_000 });
      const exported = exportSpans(exporter, finishedScenario());
      await expect.poll(() => otlp.requests().length).toBe(1);
      expect(otlp.spans()).toEqual([]);

      otlp.setBehaviour({ status: 200 });
      expect(await exported).toEqual({ code: SUCCESS });
      expect(otlp.requests().map((r) => r.status)).toEqual([503, 200]);
      expect(otlp.spans()).toHaveLength(3);
    });
  });

  it('decodes the same spans from http/protobuf and http/json to the same model', async () => {
    const spans = finishedScenario();
    const [proto, json] = [await receiver(), await receiver()];
    const [protoEncoding, jsonEncoding] = encodings;
    expect(await exportSpans(exporterFor(protoEncoding, { url: proto.tracesUrl }), spans)).toEqual({ code: SUCCESS });
    expect(await exportSpans(exporterFor(jsonEncoding, { url: json.tracesUrl }), spans)).toEqual({ code: SUCCESS });

    expect(proto.spans()).toHaveLength(3);
    expect(proto.spans()).toStrictEqual(json.spans());
  });

  it('decodes key-value lists, bytes and big integers the API cannot set, alike in both encodings', async () => {
    // The SDK drops such attribute values, but the exporters' serialisers encode whatever a
    // ReadableSpan holds, so a span with them still goes through the official encoders.
    const [real] = finishedScenario().filter((span) => span.name === 'GET /plants');
    const attributes = {
      'plant.location': { greenhouse: 'north', shelf: 4, tags: ['sunny'] },
      'plant.photo': new Uint8Array([0, 1, 254, 255]),
      'plant.big': 2 ** 60,
      'plant.negative': -7,
    } as unknown as OtelAttributes;
    const span: ReadableSpan = {
      ...(real as ReadableSpan),
      spanContext: () => (real as ReadableSpan).spanContext(),
      attributes,
    };
    const [proto, json] = [await receiver(), await receiver()];
    const [protoEncoding, jsonEncoding] = encodings;
    await exportSpans(exporterFor(protoEncoding, { url: proto.tracesUrl }), [span]);
    await exportSpans(exporterFor(jsonEncoding, { url: json.tracesUrl }), [span]);

    const expected = {
      'plant.location': { greenhouse: 'north', shelf: 4, tags: ['sunny'] },
      'plant.photo': Buffer.from([0, 1, 254, 255]),
      'plant.big': 2n ** 60n,
      'plant.negative': -7,
    };
    expect(proto.spans()[0]?.attributes).toStrictEqual(expected);
    expect(json.spans()[0]?.attributes).toStrictEqual(expected);
  });

  it('reads OTLP/JSON int64 as strings or numbers, ids in any case, and an empty parent as none', async () => {
    const otlp = await receiver();
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'hand-made' } }] },
          scopeSpans: [
            {
              scope: { name: 'manual' },
              spans: [
                {
                  traceId: '5B8EFFF798038103D269B633813FC60C',
                  spanId: 'EEE19B7EC3C1B174',
                  parentSpanId: '',
                  name: 'hand-made',
                  kind: 1,
                  startTimeUnixNano: 1_700_000_000_000_000_000,
                  endTimeUnixNano: '1700000000000000123',
                  attributes: [
                    { key: 'as.string', value: { intValue: '42' } },
                    { key: 'as.number', value: { intValue: 42 } },
                    { key: 'infinite', value: { doubleValue: 'Infinity' } },
                    { key: 'empty', value: {} },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const response = await post(otlp.tracesUrl, 'application/json', JSON.stringify(body));

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({});
    expect(otlp.spans()).toStrictEqual([
      {
        traceId: '5b8efff798038103d269b633813fc60c',
        spanId: 'eee19b7ec3c1b174',
        name: 'hand-made',
        kind: 'INTERNAL',
        startTimeUnixNano: 1_700_000_000_000_000_000n,
        endTimeUnixNano: 1_700_000_000_000_000_123n,
        attributes: { 'as.string': 42, 'as.number': 42, infinite: Infinity, empty: null },
        events: [],
        links: [],
        status: { code: 'UNSET' },
        resource: { 'service.name': 'hand-made' },
        scope: { name: 'manual' },
      },
    ]);
  });

  it('refuses with 400 what breaks the OTLP/JSON rules, saying where', async () => {
    const otlp = await receiver();
    const span = (fields: object) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [fields] }] }] });
    const ids = { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174' };
    const cases = [
      [span({ ...ids, kind: 'SPAN_KIND_SERVER' }), /spans\[0\]\.kind: expected one of the integers/],
      [span({ ...ids, start_time_unix_nano: '1' }), /start_time_unix_nano: OTLP\/JSON keys are lowerCamelCase/],
      [span({ ...ids, traceId: 'W47/95gDgQPSabYzgT/GDA==' }), /traceId: expected an id as hex digits/],
      [span({ ...ids, spanId: 'eee1' }), /spanId: expected an id of 8 bytes, got 2/],
      ['{"resourceSpans": [', /not an OTLP json ExportTraceServiceRequest/],
    ] as const;
    for (const [body, message] of cases) {
      const response = await post(otlp.tracesUrl, 'application/json', body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 3, message: expect.stringMatching(message) });
    }
    expect(otlp.requests().map((r) => r.error)).toEqual(cases.map(([, message]) => expect.stringMatching(message)));
    expect(otlp.spans()).toEqual([]);
  });

  it('refuses bodies it cannot read: 400 for malformed ones, 415 for unknown types and codings', async () => {
    const otlp = await receiver();
    const send = async (headers: Record<string, string>, body: string | Buffer): Promise<[number, string | null]> => {
      const response = await fetch(otlp.tracesUrl, { method: 'POST', headers, body });
      await response.arrayBuffer();
      return [response.status, response.headers.get('content-type')];
    };
    const protobuf = { 'content-type': 'application/x-protobuf' };

    expect(await send(protobuf, Buffer.from([0x0a, 0xff, 0xff, 0x01]))).toEqual([400, 'application/x-protobuf']);
    expect(await send({ ...protobuf, 'content-encoding': 'gzip' }, 'not gzip')).toEqual([400, expect.anything()]);
    expect(await send({ ...protobuf, 'content-encoding': 'br' }, 'hello')).toEqual([415, expect.anything()]);
    expect(await send({ 'content-type': 'text/plain' }, 'hello')).toEqual([415, expect.anything()]);
    expect(otlp.requests().map((r) => r.error)).toEqual([
      expect.stringMatching(/^not an OTLP protobuf ExportTraceServiceRequest: /),
      expect.stringMatching(/^Content-Encoding gzip: /),
      'unsupported Content-Encoding "br" (OTLP/HTTP allows gzip)',
      'unsupported Content-Type "text/plain" (OTLP/HTTP sends application/x-protobuf or application/json)',
    ]);
    expect(otlp.rawBodies().map((body) => body.toString('latin1'))).toEqual([
      '\x0a\xff\xff\x01',
      'not gzip',
      'hello',
      'hello',
    ]);
    expect(otlp.spans()).toEqual([]);
  });

  it('waitForSpans resolves once the matching spans arrive', async () => {
    const otlp = await receiver();
    const waiting = otlp.waitForSpans((span) => span.kind === 'SERVER' || span.kind === 'CLIENT', { count: 2 });
    await exportSpans(exporterFor(encodings[0], { url: otlp.tracesUrl }), finishedScenario());

    expect((await waiting).map((span) => span.name)).toEqual(['select plants', 'GET /plants']);
  });

  it('waitForSpans rejects on timeout naming the spans it saw', async () => {
    const otlp = await receiver();
    await exportSpans(exporterFor(encodings[1], { url: otlp.tracesUrl }), finishedScenario());

    await expect(otlp.waitForSpans((span) => span.name === 'DELETE /plants', { timeoutMs: 50 })).rejects.toThrow(
      'waitForSpans: no matching span within 50 ms; spans received: enqueue watering, select plants, GET /plants; 1 request(s)',
    );
    await expect(otlp.waitForSpans((span) => span.kind === 'SERVER', { timeoutMs: 50, count: 2 })).rejects.toThrow(
      'waitForSpans: no matching span within 50 ms (1 of 2 matched); spans received:',
    );
  });

  it('clear forgets spans and requests', async () => {
    const otlp = await receiver();
    await exportSpans(exporterFor(encodings[0], { url: otlp.tracesUrl }), finishedScenario());
    otlp.clear();

    expect([otlp.spans(), otlp.rawBodies(), otlp.requests()]).toEqual([[], [], []]);
  });

  it('close drops a delayed answer and its connection, and rejects pending waits', async () => {
    const otlp = await receiver({ delayMs: 60_000 });
    const pending = expect(otlp.waitForSpans(() => false, { timeoutMs: 60_000 })).rejects.toThrow(
      'waitForSpans: the OTLP receiver was closed; no spans received',
    );
    const response = expect(post(otlp.tracesUrl, 'application/json', '{}')).rejects.toThrow();
    await expect.poll(() => otlp.requests().length).toBe(1);
    const started = Date.now();
    await otlp.close();

    expect(Date.now() - started).toBeLessThan(1_000);
    await response;
    await pending;
  });
});
