import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';

// The pool of porsager `postgres` keeps its connections in Queues (idle, busy, …): taking an idle
// connection is a shift(), and moving it to the busy queue a remove() from the queue it came from.
// The release we use leaves a hole per shift() until the queue is empty, and remove() scans from
// the first slot, so an idle queue that never empties (fewer statements in flight than connections
// open: a server's usual state) grows by one slot per query and each query scans all of it. The
// patch in patches/ compacts the queue and searches from its head; these tests hold the installed
// driver to it. The package exports no subpath, so the module is found beside its entry point: the
// ES module the server imports.
interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}
const require = createRequire(import.meta.url);
// require() resolves the package to its CommonJS copy, cjs/src/index.js.
const packageRoot = path.resolve(path.dirname(require.resolve('postgres')), '..', '..');
const { default: Queue } = (await import(pathToFileURL(path.join(packageRoot, 'src', 'queue.js')).href)) as {
  default: <T>(initial?: T[]) => Queue<T>;
};

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

describe('the PostgreSQL driver’s Queue (patched)', () => {
  it('keeps its order through shifts, pushes and removes', () => {
    const queue = Queue<string>();
    for (const x of ['a', 'b', 'c', 'd']) queue.push(x);
    expect(queue.shift()).toBe('a');
    expect(queue.remove('a')).toBeNull();
    expect(queue.remove('c')).toBe('c');
    expect(queue.length).toBe(2);
    queue.push('e');
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual(['b', 'd', 'e']);
    expect(queue.length).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });

  it('holds no memory for the shifts of a queue that never empties', () => {
    // The idle queue of a pool with ten connections and fewer statements in flight: a connection
    // is shifted out and, its statement done, pushed back; the queue never empties.
    const queue = Queue<object>();
    const connections = Array.from({ length: 10 }, () => ({}));
    for (const c of connections) queue.push(c);
    const before = heapAfterGc();
    for (let i = 0; i < 1_000_000; i++) {
      queue.push(queue.shift() as object);
    }
    // Unpatched, the array keeps a slot per shift: 8 MB and more here, and remove() scans them.
    expect(heapAfterGc() - before).toBeLessThan(1_000_000);
    expect(queue.length).toBe(10);
    expect(new Set(Array.from({ length: 10 }, () => queue.shift())).size).toBe(10);
  });
});
