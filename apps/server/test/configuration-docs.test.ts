/**
 * The configuration is documented exactly. What the server reads is found mechanically:
 * decodeConfig and configWarnings run over an environment that records every name looked up, and
 * no source file reads `process.env` except through them. The table of docs/reference/configuration.md
 * and the root `.env.example` must name exactly those variables, and `.env.example` must hold only
 * defaults, so that copying it to `.env` (even uncommented) changes nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { CLIENT_TOKEN_VARIABLE, configWarnings, decodeConfig } from '../src/config.js';

const root = new URL('../../../', import.meta.url);
const src = new URL('../src/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

/** Every name decodeConfig and configWarnings look up in the environment. */
const namesLookedUp = (): string[] => {
  const names = new Set<string>();
  const recorder = new Proxy<Record<string, string | undefined>>(
    {},
    {
      get: (_, name) => {
        if (typeof name === 'string') names.add(name);
        return undefined;
      },
    },
  );
  decodeConfig(recorder);
  configWarnings(recorder);
  return [...names];
};

// PLANT_STORE_TOKEN is looked up only to warn that the server ignores it (the client CLI's token).
const serverVariables = namesLookedUp().filter((name) => name !== CLIENT_TOKEN_VARIABLE);

const CONFIGURATION_DOC = 'docs/reference/configuration.md';

/** The Variables table of the configuration reference: variable → its default cell, in table order. */
const docsTable = (): Map<string, string> => {
  const page = read(CONFIGURATION_DOC);
  const start = page.indexOf('\n## Variables\n');
  if (start === -1) throw new TypeError(`${CONFIGURATION_DOC} has no "## Variables" section`);
  const next = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, next === -1 ? undefined : next);
  // Cells may be padded (Prettier aligns the columns).
  return new Map(
    [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` +\| ([^|]*?) *\|/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
  );
};

/** `.env.example`: variable → value, in file order, from `# NAME=value` (or `NAME=value`) lines. */
const envExample = (): Map<string, string> =>
  new Map([...read('.env.example').matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));

const sourceFiles = (dir: URL): URL[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(new URL(`${entry.name}/`, dir))
      : entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')
        ? [new URL(entry.name, dir)]
        : [],
  );

describe('the configuration the server reads', () => {
  it('comes from process.env only through decodeConfig and configWarnings', () => {
    const strays = sourceFiles(src).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          line.replace(/(?:decodeConfig|configWarnings)\(process\.env\)/g, '').includes('process.env')
            ? [`${file.pathname.slice(src.pathname.length)}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(
      strays,
      'read variables in src/config.ts (or src/config/), so that they are decoded, checked and documented',
    ).toEqual([]);
    expect(serverVariables).toContain('DATABASE_URL');
  });

  it(`is exactly the table of ${CONFIGURATION_DOC}`, () => {
    expect([...docsTable().keys()].sort()).toEqual([...serverVariables].sort());
  });

  it('is exactly .env.example, in the order of the documented table', () => {
    expect([...envExample().keys()]).toEqual([...docsTable().keys()]);
  });

  it('reaches the server under `pnpm start` and `pnpm dev` (turbo passes only passThroughEnv)', () => {
    const tasks = (JSON.parse(read('turbo.json')) as { tasks: Record<string, { passThroughEnv?: string[] }> }).tasks;
    for (const task of ['start', 'dev']) {
      const passed = tasks[task]?.passThroughEnv ?? [];
      const covered = (name: string) =>
        passed.some((p) => p === name || (p.endsWith('*') && name.startsWith(p.slice(0, -1))));
      expect(
        serverVariables.filter((name) => !covered(name)),
        `turbo.json tasks.${task}.passThroughEnv`,
      ).toEqual([]);
    }
  });
});

describe('.env.example', () => {
  it('comments out every variable', () => {
    expect(read('.env.example').match(/^[A-Z][A-Z0-9_]*=.*$/gm) ?? []).toEqual([]);
  });

  it('holds only defaults: uncommented, it decodes to the configuration of an empty environment', () => {
    const uncommented = Object.fromEntries(envExample());
    expect(decodeConfig(uncommented)).toEqual(decodeConfig({}));
    expect(E.isRight(decodeConfig({}))).toBe(true);
  });

  it('agrees with the documented table on every default it spells out', () => {
    const table = docsTable();
    const disagreements = [...envExample()]
      .filter(([name, value]) => value !== '' && !(table.get(name) ?? '').includes(`\`${value}\``))
      .map(
        ([name, value]) =>
          `${name}=${value} but ${CONFIGURATION_DOC} says the default is ${table.get(name) ?? '(missing)'}`,
      );
    expect(disagreements).toEqual([]);
  });
});
