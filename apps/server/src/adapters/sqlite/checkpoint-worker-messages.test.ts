import { describe, expect, it } from 'vitest';
import { CheckpointReport } from './checkpoint-worker-messages.js';

describe('CheckpointReport', () => {
  it.each([
    { type: 'ready' },
    { type: 'busy', mode: 'RESTART', walBytes: 5_000_000, log: 1200, checkpointed: 900 },
    { type: 'busy', mode: 'TRUNCATE', walBytes: 5_000_000, log: 1200, checkpointed: 900 },
    { type: 'error', message: 'disk I/O error', code: 'SQLITE_IOERR' },
    { type: 'error', message: 'no code', code: undefined },
    { type: 'restarted', restarted: true, walBytes: 4_194_304 },
    { type: 'restarted', restarted: false, walBytes: 9_000_000 },
  ])('accepts %j', (message) => {
    expect(CheckpointReport.decode(message)).toEqual({ _tag: 'Right', right: message });
  });

  it.each([
    ['stop'],
    [{ type: 'done' }],
    [{ type: 'busy', mode: 'PASSIVE', walBytes: 1, log: 1, checkpointed: 1 }],
    [{ type: 'busy', mode: 'RESTART', walBytes: '1', log: 1, checkpointed: 1 }],
    [{ type: 'error', message: 5, code: undefined }],
    [{ type: 'error', message: 'x', code: 14 }],
    [{ type: 'restarted', restarted: 'yes', walBytes: 1 }],
    [{ type: 'restarted', walBytes: 1 }],
  ])('refuses %j', (message) => {
    expect(CheckpointReport.decode(message)._tag).toBe('Left');
  });
});
