import { describe, expect, it } from 'vitest';
import { spanTree } from '../src/index.js';
import { byName, encodings, exportSpans, finishedScenario, SECRET, useOtlp } from './fixtures/otel-scenario.js';

const { receiver, exporterFor } = useOtlp();

describe('spanTree', () => {
  it('renders a trace as an indented tree with kinds, attributes, status, events and links', async () => {
    const otlp = await receiver();
    await exportSpans(exporterFor(encodings[0], { url: otlp.tracesUrl }), finishedScenario());
    const request = byName(otlp.spans(), 'GET /plants');
    const job = byName(otlp.spans(), 'enqueue watering');

    expect(spanTree(otlp.spans(), request.traceId)).toBe(
      [
        `GET /plants [SERVER] http.request.method=GET http.response.status_code=500 plant.ratio=0.25 plant.cached=false plant.tags=["fern","moss"] plant.sizes=[1,2,3] plant.note=${SECRET}`,
        '  select plants [CLIENT] status=ERROR status.message="disk full"',
        '    event: rows read rows.count=3',
        `    link: ${job.traceId}/${job.spanId} link.reason=waters`,
      ].join('\n'),
    );
    expect(spanTree(otlp.spans(), job.traceId)).toBe('enqueue watering [PRODUCER]');
    expect(spanTree(otlp.spans(), '0'.repeat(32))).toBe(`(no spans of trace ${'0'.repeat(32)})`);
  });

  it('shows a span whose parent was not received at the top, marked', async () => {
    const otlp = await receiver();
    await exportSpans(
      exporterFor(encodings[1], { url: otlp.tracesUrl }),
      finishedScenario().filter((span) => span.name !== 'GET /plants'),
    );
    const query = byName(otlp.spans(), 'select plants');

    expect(spanTree(otlp.spans(), query.traceId).split('\n')[0]).toBe(
      `select plants [CLIENT] status=ERROR status.message="disk full" (parent ${query.parentSpanId} not received)`,
    );
  });
});
