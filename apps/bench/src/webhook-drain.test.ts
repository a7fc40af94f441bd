import { describe, expect, it } from 'vitest';
import { formatDrain, measureDrain, metricValue, parseOutbox, type OutboxReading } from './webhook-drain.js';

// As the server's METRICS_PORT serves it (prom-client).
const SCRAPE = `# HELP plant_store_webhook_attempts_total Webhook attempts by outcome.
# TYPE plant_store_webhook_attempts_total counter
plant_store_webhook_attempts_total{outcome="delivered"} 1200
plant_store_webhook_attempts_total{outcome="retry"} 3
plant_store_webhook_attempts_total{outcome="failed"} 0
# HELP plant_store_webhook_outbox_pending Webhook deliveries not yet ended.
# TYPE plant_store_webhook_outbox_pending gauge
plant_store_webhook_outbox_pending 42
plant_store_http_requests_total{method="POST",route="/plants",status="201"} 9
`;

describe('metricValue', () => {
  it('finds a sample by name and labels, in any label order', () => {
    expect(metricValue(SCRAPE, 'plant_store_webhook_outbox_pending')).toBe(42);
    expect(metricValue(SCRAPE, 'plant_store_webhook_attempts_total', { outcome: 'retry' })).toBe(3);
    expect(
      metricValue(SCRAPE, 'plant_store_http_requests_total', { status: '201', route: '/plants', method: 'POST' }),
    ).toBe(9);
  });

  it('returns undefined for an absent sample or one with other labels', () => {
    expect(metricValue(SCRAPE, 'plant_store_webhook_outbox_oldest_age_seconds')).toBeUndefined();
    expect(metricValue(SCRAPE, 'plant_store_webhook_attempts_total')).toBeUndefined();
    expect(metricValue(SCRAPE, 'plant_store_webhook_attempts_total', { outcome: 'gone' })).toBeUndefined();
  });
});

describe('parseOutbox', () => {
  it('reads the backlog and the attempts by outcome', () => {
    expect(parseOutbox(SCRAPE)).toEqual({ pending: 42, delivered: 1200, retried: 3, failed: 0 });
  });

  it('names the figure a scrape lacks', () => {
    expect(() => parseOutbox('plant_store_webhook_outbox_pending 0\n')).toThrow(/plant_store_webhook_attempts_total/);
  });
});

describe('measureDrain', () => {
  const reading = (pending: number, delivered: number): OutboxReading => ({
    pending,
    delivered,
    retried: 0,
    failed: 0,
  });
  const start = reading(0, 1000);

  it('reads until the outbox is empty and times it from the load’s end', async () => {
    const readings = [reading(500, 1500), reading(200, 1800), reading(0, 2000)];
    let clock = 0;
    const drain = await measureDrain({
      start,
      limitSeconds: 60,
      pollMs: 1,
      now: () => clock,
      read: async () => {
        clock += 400;
        return readings.shift() ?? reading(0, 2000);
      },
    });
    expect(drain).toEqual({
      backlogAtStop: 500,
      backlogAtStart: 0,
      seconds: 1.2,
      limitSeconds: 60,
      backlogAtEnd: 0,
      delivered: 1000,
      retried: 0,
      failed: 0,
    });
    expect(formatDrain(drain)).toBe(
      'backlog 500 at stop (0 at start), drained in 1.2 s (417/s); attempts 1,000 delivered, 0 retried, 0 failed',
    );
  });

  it('gives up after the limit and says what is left', async () => {
    let clock = 0;
    const drain = await measureDrain({
      start,
      limitSeconds: 2,
      pollMs: 1,
      now: () => clock,
      read: async () => {
        clock += 500;
        return reading(7000, 1000);
      },
    });
    expect(drain).toMatchObject({ backlogAtStop: 7000, seconds: undefined, backlogAtEnd: 7000 });
    expect(formatDrain(drain)).toContain('not drained in 2 s (7,000 left)');
  });
});
