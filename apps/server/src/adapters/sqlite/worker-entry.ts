import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The file a worker thread runs, given the compiled one beside the caller:
 * `workerEntry(new URL('./x-main.js', import.meta.url))`. From tsc's output (dist/, the image)
 * that file is there and is the one run. Under vitest, which runs the TypeScript sources, there
 * is no .js beside them, and the thread runs the .ts instead: Node strips its types itself
 * (22.18 and later; `process.features.typescript`). Node resolves no `./y.js` to `./y.ts` when
 * it does, which is why a worker's entry file imports packages and, from its own folder, types
 * only (eslint.config.js holds that for every `*-worker-main.ts`).
 */
export const workerEntry = (compiled: URL): URL => {
  if (existsSync(compiled)) return compiled;
  const source = new URL(compiled.href.replace(/\.js$/, '.ts'));
  // Neither: the Worker fails with the compiled file's name, the one a build would make.
  if (!existsSync(source)) return compiled;
  if (process.features.typescript === false)
    throw new TypeError(
      `Node ${process.versions.node} cannot run ${fileURLToPath(source)} on a worker thread ` +
        '(Node runs TypeScript from 22.18): run the built server (dist/), or a newer Node',
    );
  return source;
};
