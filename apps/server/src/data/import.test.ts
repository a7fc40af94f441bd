import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImportPlant } from '../ports/store-data.js';
import { decodeLine, IMPORT_CHUNK, importFile, readLines } from './import.js';
import { progressOn } from './progress.js';

const silent = progressOn({ isTTY: false } as NodeJS.WriteStream);

describe('decodeLine', () => {
  it('keeps a plant with its id, and an absent tag absent', () => {
    expect(decodeLine(1, '{"id":3,"name":"Fern"}')).toEqual({ line: 1, plant: { id: 3, name: 'Fern' } });
    expect(decodeLine(2, '{"id":4,"name":"Ivy","tag":"green"}')).toEqual({
      line: 2,
      plant: { id: 4, name: 'Ivy', tag: 'green' },
    });
  });

  it.each([
    ['{"name":"Fern"}', 'id: required: an imported plant keeps its id'],
    ['{"tag":"x"}', 'name: required; id: required: an imported plant keeps its id'],
    ['{"id":1.5,"name":"Fern"}', 'id: expected an integer from 1 to 9007199254740991, got 1.5'],
    [
      '{"id":5.0000000000000001,"name":"Fern"}',
      'id: expected an integer from 1 to 9007199254740991, got 5.0000000000000001',
    ],
    ['{"id":1,"name":""}', 'name: expected 1–200 characters, got 0'],
    ['{"id":1,"name":"Fern","colour":"green"}', 'colour'],
    ['[1]', 'expected'],
    ['{"id":1,', 'not valid JSON'],
  ])('reports %s by the rules of a create', (text, message) => {
    const decoded = decodeLine(7, text);
    expect(decoded).toMatchObject({ line: 7 });
    expect('problems' in decoded && decoded.problems.join('; ')).toContain(message);
  });
});

describe('readLines', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('splits at LF (CRLF too) only: U+2028, U+2029 and U+0085 stay inside the name', async () => {
    dir = mkdtempSync(join(tmpdir(), 'plant-import-'));
    const path = join(dir, 'plants.jsonl');
    const names = ['a\u2028b', 'c\u2029d', 'e\u0085f'];
    writeFileSync(path, names.map((name, i) => JSON.stringify({ id: i + 1, name })).join('\r\n'));
    const lines: unknown[] = [];
    for await (const line of readLines(path)) lines.push(line);
    expect(lines).toEqual(names.map((name, i) => ({ line: i + 1, plant: { id: i + 1, name } })));
  });
});

describe('importFile', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (lines: readonly string[]): string => {
    dir = mkdtempSync(join(tmpdir(), 'plant-import-'));
    const path = join(dir, 'plants.jsonl');
    writeFileSync(path, lines.join('\n') + '\n');
    return path;
  };
  /** A store of plants by id that answers like DataStore.importPlants. */
  const memoryStore = (stored = new Map<number, ImportPlant>()) => {
    const chunks: ImportPlant[][] = [];
    const write = (plants: readonly ImportPlant[]) => {
      chunks.push([...plants]);
      return Promise.resolve(
        plants.map((p) => {
          const found = stored.get(p.id);
          if (found === undefined) {
            stored.set(p.id, p);
            return 'created' as const;
          }
          return found.name === p.name && found.tag === p.tag
            ? ('present' as const)
            : { conflict: { plant: found, version: 1 } };
        }),
      );
    };
    return { stored, chunks, write };
  };
  const recorder = () => {
    const lines: string[] = [];
    return {
      lines,
      report: {
        invalid: (line: number, problems: readonly string[]) => void lines.push(`${line}: ${problems.join('; ')}`),
        conflict: (line: number, plant: ImportPlant) => void lines.push(`${line}: conflict ${plant.id}`),
      },
    };
  };

  it('writes nothing while a line is invalid, and reports every invalid line by number', async () => {
    const store = memoryStore();
    const { lines, report } = recorder();
    const path = file(['{"id":1,"name":"Fern"}', '', '{"id":2}', 'nope', '{"id":3,"name":"Ivy"}']);
    const summary = await importFile(path, { skipInvalid: false }, store.write, report, silent);
    expect(summary).toMatchObject({ written: false, created: 0, skipped: 2 });
    expect(store.chunks).toEqual([]);
    expect(lines.map((l) => l.split(':')[0])).toEqual(['3', '4']);
  });

  it('with skipInvalid writes the valid lines; a repeated id meets the first as stored', async () => {
    const old = decodeLine(0, '{"id":9,"name":"Old"}');
    const store = memoryStore(new Map('plant' in old ? [[9, old.plant]] : []));
    const { lines, report } = recorder();
    const path = file([
      '{"id":1,"name":"Fern"}',
      '{"id":2}',
      '{"id":1,"name":"Fern"}',
      '{"id":1,"name":"Other"}',
      '{"id":9,"name":"New"}',
    ]);
    const summary = await importFile(path, { skipInvalid: true }, store.write, report, silent);
    expect(summary).toEqual({ written: true, created: 1, present: 1, conflicts: 2, skipped: 1 });
    expect(lines).toEqual(['2: name: required', '4: conflict 1', '5: conflict 9']);
    expect(store.chunks.every((chunk) => new Set(chunk.map((p) => p.id)).size === chunk.length)).toBe(true);
  });

  it('writes in chunks of at most IMPORT_CHUNK lines', async () => {
    const store = memoryStore();
    const path = file(
      Array.from({ length: IMPORT_CHUNK + 1 }, (_, i) => JSON.stringify({ id: i + 1, name: `P ${i}` })),
    );
    const summary = await importFile(path, { skipInvalid: false }, store.write, recorder().report, silent);
    expect(summary.created).toBe(IMPORT_CHUNK + 1);
    expect(store.chunks.map((c) => c.length)).toEqual([IMPORT_CHUNK, 1]);
  });
});
