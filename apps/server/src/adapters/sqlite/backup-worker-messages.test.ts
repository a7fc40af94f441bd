import { describe, expect, it } from 'vitest';
import { BackupOutcome } from './backup-worker-messages.js';

describe('BackupOutcome', () => {
  it.each([
    { type: 'done', integrity: 'ok', plants: 300 },
    { type: 'done', integrity: '*** in database main ***\nPage 4: never used', plants: 0 },
    { type: 'error', message: 'database is locked' },
  ])('accepts %j', (outcome) => {
    expect(BackupOutcome.decode(outcome)).toEqual({ _tag: 'Right', right: outcome });
  });

  it.each([
    [undefined],
    [{ type: 'done', integrity: 'ok' }],
    [{ type: 'done', integrity: 'ok', plants: '300' }],
    [{ type: 'done', integrity: ['ok'], plants: 300 }],
    [{ type: 'error' }],
    [{ type: 'ready' }],
  ])('refuses %j', (outcome) => {
    expect(BackupOutcome.decode(outcome)._tag).toBe('Left');
  });
});
