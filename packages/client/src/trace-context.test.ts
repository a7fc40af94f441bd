import * as otel from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { createTraceHeaders, type OtelApi } from './trace-context.js';

const spanContext = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: 0x0b,
  traceState: { serialize: () => 'vendor=opaque' },
};

const fakeApi = (inject: OtelApi['propagation']['inject'] = () => {}): OtelApi => ({
  context: { active: () => ({}) },
  propagation: { inject },
  trace: { getSpanContext: () => spanContext, isSpanContextValid: () => true },
});

describe('createTraceHeaders', () => {
  it('gives no headers and looks for the API only once when it is not installed', () => {
    let loads = 0;
    const traceHeaders = createTraceHeaders(() => {
      loads++;
      return undefined;
    });
    expect([traceHeaders(), traceHeaders(), traceHeaders()]).toEqual([undefined, undefined, undefined]);
    expect(loads).toBe(1);
  });

  it('takes the real API, which gives no headers while no span is active', () => {
    const api: OtelApi = otel;
    expect(createTraceHeaders(() => api)()).toBeUndefined();
  });

  it('writes traceparent and tracestate itself when the propagator writes nothing', () => {
    expect(createTraceHeaders(() => fakeApi())()).toEqual({
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0b',
      tracestate: 'vendor=opaque',
    });
  });

  it("keeps the propagator's traceparent and tracestate, with names in lower case", () => {
    const api = fakeApi((_context, carrier) => {
      carrier['Traceparent'] = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      carrier['TraceState'] = 'vendor=theirs';
    });
    expect(createTraceHeaders(() => api)()).toEqual({
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=theirs',
    });
  });
});
