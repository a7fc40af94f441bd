import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { endQuietlyOnEpipe } from './quiet-epipe.js';

const epipe = (): NodeJS.ErrnoException => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });

describe('endQuietlyOnEpipe', () => {
  it('exits with 0 when the reader closed the pipe and no exit code was set', () => {
    const stdout = new EventEmitter();
    const exits: number[] = [];
    endQuietlyOnEpipe(
      stdout,
      (code) => exits.push(code),
      () => undefined,
    );
    stdout.emit('error', epipe());
    expect(exits).toEqual([0]);
  });

  it('keeps an exit code set before', () => {
    const stdout = new EventEmitter();
    const exits: number[] = [];
    endQuietlyOnEpipe(
      stdout,
      (code) => exits.push(code),
      () => 1,
    );
    stdout.emit('error', epipe());
    expect(exits).toEqual([1]);
  });

  it('throws any other error of stdout', () => {
    const stdout = new EventEmitter();
    const exits: number[] = [];
    endQuietlyOnEpipe(
      stdout,
      (code) => exits.push(code),
      () => undefined,
    );
    const other = Object.assign(new Error('write EIO'), { code: 'EIO' });
    expect(() => stdout.emit('error', other)).toThrow(other);
    expect(exits).toEqual([]);
  });
});
