import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The README and docs/ link to each other by file and #anchor, and name source files: when a heading
 * is renamed or a file moves, a link breaks silently. Every relative link must reach a file or folder,
 * every #anchor a heading of its target (GitHub's slugs), and every `src/…` path a doc names must exist.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? markdownFiles(full) : name.endsWith('.md') ? [full] : [];
  });
}
const FILES = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

/** The text outside fenced code blocks, where links and headings are markdown. */
function prose(text: string): string {
  return text
    .split(/^```.*$/m)
    .filter((_, i) => i % 2 === 0)
    .join('\n');
}

/** GitHub's heading anchors: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens, -1, -2 … for repeats. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function links(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)].map((m) => m[1]!);
}

describe('links and anchors in README.md and docs/', () => {
  it('finds the documents', () => {
    expect(FILES.map((f) => path.relative(ROOT, f))).toEqual(
      expect.arrayContaining(['README.md', 'docs/api.md', 'docs/decisions/README.md']),
    );
  });

  for (const file of FILES) {
    const name = path.relative(ROOT, file);
    it(`${name}: every relative link and #anchor resolves`, () => {
      const text = readFileSync(file, 'utf8');
      const broken: string[] = [];
      for (const link of links(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: …
        const [target = '', anchor] = link.split('#', 2);
        const resolved = target ? path.resolve(path.dirname(file), decodeURIComponent(target)) : file;
        if (!existsSync(resolved)) {
          broken.push(`${link}: no such file`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!resolved.endsWith('.md')) {
          broken.push(`${link}: an anchor into a file that is not markdown`);
          continue;
        }
        if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${link}: no heading with that anchor`);
      }
      expect(broken).toEqual([]);
    });
  }

  it('computes anchors as GitHub does', () => {
    const anchors = anchorsOf(
      '# POST /risk_api/rate/ — quick feedback (free)\n## `DATA_DIR` is private\n## Notes\n## Notes\n',
    );
    expect([...anchors]).toEqual(['post-risk_apirate--quick-feedback-free', 'data_dir-is-private', 'notes', 'notes-1']);
  });
});

describe('source paths named in README.md and docs/', () => {
  for (const file of FILES) {
    it(`${path.relative(ROOT, file)}: every \`src/…\` path exists`, () => {
      const named = [...readFileSync(file, 'utf8').matchAll(/`(src\/[^`\s<>*]+)`/g)].map((m) => m[1]!);
      expect(named.filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
    });
  }
});
