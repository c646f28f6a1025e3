import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The docs name files (docs/architecture.md's "one home of each job") and link each other; a
// rename elsewhere must turn this red instead of leaving a reader at a dead end.
const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);

describe('documentation references', () => {
  it('every src/ path a document names exists', () => {
    const missing = DOCS.flatMap((doc) =>
      [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/`(src\/[\w./-]+)`/g)]
        .map((m) => m[1] as string)
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${doc}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('every relative link between documents points at a file', () => {
    const broken = DOCS.flatMap((doc) =>
      [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/\]\(([^)#:\s]+\.md)(#[^)]*)?\)/g)]
        .map((m) => m[1] as string)
        .filter((link) => !existsSync(join(ROOT, dirname(doc), link)))
        .map((link) => `${doc}: ${link}`),
    );
    expect(broken).toEqual([]);
  });

  it('every link into the repository (for what the npm package leaves out) names a path that exists', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      repository: { url: string };
    };
    const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    const links = DOCS.flatMap((doc) =>
      [
        ...readFileSync(join(ROOT, doc), 'utf8').matchAll(
          /\]\((https:\/\/github\.com\/[^)\s]+)\)/g,
        ),
      ].map((m) => ({ doc, url: m[1] as string })),
    );
    expect(links.length).toBeGreaterThan(0);
    const broken = links
      .filter(({ url }) => {
        const prefix = [`${repo}/tree/main/`, `${repo}/blob/main/`].find((p) => url.startsWith(p));
        return prefix === undefined || !existsSync(join(ROOT, url.slice(prefix.length)));
      })
      .map(({ doc, url }) => `${doc}: ${url}`);
    expect(broken).toEqual([]);
  });

  it('every #anchor of a link between documents names a heading there', () => {
    const broken = DOCS.flatMap((doc) =>
      [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/\]\(([^)#:\s]*\.md)?#([^)\s]+)\)/g)]
        .filter((m) => {
          const target = m[1] ? join(ROOT, dirname(doc), m[1]) : join(ROOT, doc);
          return existsSync(target) && !anchorsOf(target).has(m[2] as string);
        })
        .map((m) => `${doc}: ${m[1] ?? ''}#${m[2]}`),
    );
    expect(broken).toEqual([]);
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens (code fences skipped). */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set(
    [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
      (m[1] as string)
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}
