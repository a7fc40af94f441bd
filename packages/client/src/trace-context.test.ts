import { describe, expect, it } from 'vitest';
import { createTraceHeaders, type OtelApi } from './trace-context.js';

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

  it('writes traceparent and tracestate itself when the propagator writes nothing', () => {
    const api: OtelApi = {
      context: { active: () => ({}) as never },
      propagation: { inject: () => {} },
      trace: {
        getSpanContext: () => ({
          traceId: '0af7651916cd43dd8448eb211c80319c',
          spanId: 'b7ad6b7169203331',
          traceFlags: 0x0b,
          traceState: { serialize: () => 'vendor=opaque' } as never,
        }),
        isSpanContextValid: () => true,
      },
    };
    expect(createTraceHeaders(() => api)()).toEqual({
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0b',
      tracestate: 'vendor=opaque',
    });
  });
});
