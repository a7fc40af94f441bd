// An ESLint rule: no import cycle between the files of a package, type-only imports included.
//
// import-x/no-cycle skips every `import type` (and every import whose names are all types), by
// design and without an option, so a circle held together by types alone passes it. This rule
// reads each file's imports with TypeScript's own pre-processor (`import`, `import type`,
// `export … from`, `import()`), follows the relative ones (`./x.js` is `./x.ts`), and reports
// an import of the file being linted that leads back to it, with the circle. Packages are
// crossed by name, never relatively, so a circle found here is always inside one package.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** file → { mtimeMs, imports }: one lint run reads each file once. */
const cache = new Map();

const isFile = (path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/** The file a relative specifier names, or undefined (a package, or nothing there). */
const resolveSpecifier = (from, specifier) => {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.(m|c)?js$/, '.$1ts'), base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find(isFile);
};

/** The files `file` imports relatively, type-only imports included. */
const importsOf = (file) => {
  const { mtimeMs } = statSync(file);
  const cached = cache.get(file);
  if (cached !== undefined && cached.mtimeMs === mtimeMs) return cached.imports;
  const imports = ts
    .preProcessFile(readFileSync(file, 'utf8'), true, true)
    .importedFiles.map(({ fileName }) => resolveSpecifier(file, fileName))
    .filter((path) => path !== undefined);
  cache.set(file, { mtimeMs, imports });
  return imports;
};

/** A path of imports from `start` back to `target` ([start, …, target]), or undefined. */
const pathBack = (start, target) => {
  const seen = new Set([start]);
  const stack = [[start]];
  while (stack.length > 0) {
    const path = stack.pop();
    for (const next of importsOf(path[path.length - 1])) {
      if (next === target) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push([...path, next]);
    }
  }
  return undefined;
};

const sourceNodes = new Set(['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration']);

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'No import cycle between the files of a package, type-only imports included.' },
    schema: [],
    messages: {
      cycle: 'Import cycle (type-only imports count): {{circle}}. Move the shared types so imports go one way.',
    },
  },
  create(context) {
    const file = context.filename;
    return {
      Program(program) {
        const name = (path) => relative(dirname(file), path);
        for (const node of program.body) {
          if (!sourceNodes.has(node.type) || node.source == null) continue;
          const target = resolveSpecifier(file, String(node.source.value));
          if (target === undefined) continue;
          const back = target === file ? [file] : pathBack(target, file);
          if (back === undefined) continue;
          const circle = [file, ...back].map(name).join(' → ');
          context.report({ node, messageId: 'cycle', data: { circle } });
        }
      },
    };
  },
};

export const importCycles = { rules: { 'no-import-cycle': noImportCycle } };
