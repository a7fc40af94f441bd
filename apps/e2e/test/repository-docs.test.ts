/**
 * The repository explains itself (docs/README.md), and its documentation holds together:
 * - every relative link in a tracked Markdown file (READMEs, docs/, the changeset README) points
 *   to a file or folder inside the repository, and an `#anchor` to a heading of the page it names;
 * - every `docs/…` path cited in a comment of a tracked .ts/.js file exists;
 * - no tracked file but a changelog names the contract or style files that used to live outside
 *   the repository: what they said is in docs/ now.
 * It reads the files git tracks, so a new page counts once it is added to the index.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const tracked = (...patterns: string[]): string[] =>
  execFileSync('git', ['ls-files', '-z', '--', ...patterns], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((path) => path !== '' && existsSync(join(root, path)));

const isChangelog = (path: string): boolean => posix.basename(path) === 'CHANGELOG.md';

/** Markdown pages: every tracked *.md but changelogs and pending changeset entries (not pages). */
const markdownPages = (): string[] =>
  tracked('*.md').filter(
    (path) => !isChangelog(path) && !(path.startsWith('.changeset/') && posix.basename(path) !== 'README.md'),
  );

/** Text with fenced code blocks and inline code spans blanked out, line numbers kept. */
const withoutCode = (markdown: string): string =>
  markdown
    .replace(/^( {0,3})(```+|~~~+)[^\n]*\n[\s\S]*?^ {0,3}\2[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));

/** GitHub's heading ids: lowercase, punctuation dropped (but - and _), spaces → -, repeats numbered. */
const headingSlugs = (markdown: string): Set<string> => {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    const heading = fence === undefined ? /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line) : null;
    if (heading === null) continue;
    const text = (heading[1] ?? '').replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
};

interface Link {
  readonly line: number;
  readonly target: string;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[label]: target`. */
const linksOf = (markdown: string): Link[] => {
  const text = withoutCode(markdown);
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const inline = [...text.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)].map((m) => ({
    line: lineOf(m.index),
    target: (m[1] ?? '').replace(/^<|>$/g, ''),
  }));
  const definitions = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/gm)].map((m) => ({
    line: lineOf(m.index),
    target: (m[1] ?? '').replace(/^<|>$/g, ''),
  }));
  return [...inline, ...definitions];
};

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

const slugCache = new Map<string, Set<string>>();
const slugsOf = (file: string): Set<string> => {
  let slugs = slugCache.get(file);
  if (slugs === undefined) {
    slugs = headingSlugs(readFileSync(file, 'utf8'));
    slugCache.set(file, slugs);
  }
  return slugs;
};

/** What is wrong with `target` as written in `page` (a path from the root), or undefined. */
const brokenLink = (page: string, target: string): string | undefined => {
  if (isExternal(target)) return undefined;
  const hash = target.indexOf('#');
  const pathPart = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? undefined : target.slice(hash + 1);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart.split('?')[0] ?? '');
  } catch {
    return 'not a valid URL path';
  }
  const file =
    decoded === ''
      ? join(root, page)
      : decoded.startsWith('/')
        ? join(root, decoded)
        : resolve(root, dirname(page), decoded);
  const inside = relative(root, file);
  if (inside.startsWith('..') || isAbsolute(inside)) return 'points outside the repository';
  if (!existsSync(file)) return `no such file ${inside}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!statSync(file).isFile() || !file.endsWith('.md')) return `#${anchor} on ${inside}, which is not a Markdown page`;
  return slugsOf(file).has(decodeURIComponent(anchor)) ? undefined : `no heading #${anchor} in ${inside || page}`;
};

/** `docs/…` paths in the comments of a source file: `// …` lines and `/* … *\/` blocks. */
const docsCitations = (source: string): Link[] => {
  const citations: Link[] = [];
  for (const comment of source.matchAll(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g)) {
    for (const m of comment[0].matchAll(/(?<![\w./-])docs\/[\w./-]*/g)) {
      citations.push({
        line: source.slice(0, comment.index + (m.index ?? 0)).split('\n').length,
        target: m[0].replace(/[.]+$/, ''),
      });
    }
  }
  return citations;
};

// Spelled in pieces so that this file does not mention them itself.
const FORMER_FILES = ['CONTRACT', 'STYLE'].map((name) => `${name}.md`);

describe('the repository documentation', () => {
  const pages = markdownPages();

  it('has the pages other files cite', () => {
    expect(pages).toEqual(
      expect.arrayContaining(['README.md', 'docs/README.md', 'docs/reference/api.md', 'docs/CONTRIBUTING.md']),
    );
  });

  it('links only to files and headings that exist inside the repository', () => {
    const links = pages.map((page) => [page, linksOf(readFileSync(join(root, page), 'utf8'))] as const);
    expect(
      links.flatMap(([, found]) => found).filter(({ target }) => !isExternal(target)).length,
      'relative links found',
    ).toBeGreaterThan(50);
    const broken = links.flatMap(([page, found]) =>
      found.flatMap(({ line, target }) => {
        const problem = brokenLink(page, target);
        return problem === undefined ? [] : [`${page}:${line}: (${target}) ${problem}`];
      }),
    );
    expect(broken, 'fix these links').toEqual([]);
  });

  it('cites only docs/ pages that exist, from code comments', () => {
    const missing = tracked('*.ts', '*.js', '*.mjs', '*.cjs').flatMap((file) =>
      docsCitations(readFileSync(join(root, file), 'utf8')).flatMap(({ line, target }) =>
        existsSync(join(root, target)) ? [] : [`${file}:${line}: ${target} does not exist`],
      ),
    );
    expect(missing, 'a comment cites a docs/ page that is not there').toEqual([]);
  });

  it(`never mentions ${FORMER_FILES.join(' or ')}, files outside the repository (changelogs aside)`, () => {
    const offenders = tracked('.')
      .filter((file) => !isChangelog(file))
      .flatMap((file) => {
        const text = readFileSync(join(root, file), 'utf8');
        if (text.includes('\u0000')) return []; // binary
        return text
          .split('\n')
          .flatMap((line, i) =>
            FORMER_FILES.some((name) => line.includes(name)) ? [`${file}:${i + 1}: ${line.trim().slice(0, 160)}`] : [],
          );
      });
    expect(offenders, `cite a docs/… page instead (${offenders.length} left)`).toEqual([]);
  });
});

describe('the link checker itself', () => {
  it('slugs headings as GitHub does', () => {
    expect([
      ...headingSlugs(
        '# Create a plant: `POST /plants`\n## Several processes (WORKERS)\n## A\n## A\n```\n# not a heading\n```\n',
      ),
    ]).toEqual(['create-a-plant-post-plants', 'several-processes-workers', 'a', 'a-1']);
  });

  it('finds a broken link, a missing heading and a way out of the repository', () => {
    expect(brokenLink('README.md', 'docs/README.md')).toBeUndefined();
    expect(brokenLink('docs/README.md', 'reference/api.md#errors')).toBeUndefined();
    expect(brokenLink('docs/README.md', 'reference/no-such-page.md')).toBe(
      'no such file docs/reference/no-such-page.md',
    );
    expect(brokenLink('docs/README.md', 'reference/api.md#no-such-heading')).toBe(
      'no heading #no-such-heading in docs/reference/api.md',
    );
    expect(brokenLink('README.md', '../shared/elsewhere.md')).toBe('points outside the repository');
    expect(brokenLink('README.md', 'https://example.com/x')).toBeUndefined();
  });
});
