// README.md is a front page a newcomer reads in minutes, every doc says first what it covers,
// and every relative link and anchor in README.md and docs/*.md leads somewhere.
import { describe, expect, it } from 'vitest';
import { dirname, join, normalize } from 'node:path';
import { docs, exists, headings, proseLines, relativeLinks, slug, type Doc } from './markdown.js';

const README_MAX_LINES = 400;
const all = docs();
const byPath = new Map(all.map((d) => [d.path, d]));

/** Why a link from `doc` to `target` leads nowhere, or undefined when it leads somewhere. */
function brokenLink(doc: Doc, target: string): string | undefined {
  const [file, anchor] = target.split('#') as [string, string | undefined];
  const path = file === '' ? doc.path : normalize(join(dirname(doc.path), decodeURIComponent(file)));
  if (path.startsWith('..')) return 'points outside the repository';
  if (!exists(path)) return `${path} does not exist`;
  if (anchor === undefined || !path.endsWith('.md')) return undefined;
  const linked = byPath.get(path);
  if (!linked) return `${path} is not a doc these tests read, so #${anchor} cannot be checked`;
  return headings(linked).some((h) => h.anchor === anchor) ? undefined : `${path} has no heading #${anchor}`;
}

describe('README.md and docs/*.md', () => {
  it(`README.md is a front page of at most ${README_MAX_LINES} lines`, () => {
    const readme = byPath.get('README.md')!;
    expect(readme.lines.length, 'move the detail into a docs/<topic>.md and link it').toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('every doc opens with its title and then a sentence of what it covers', () => {
    const problems = all.flatMap((doc) => {
      const lines = proseLines(doc);
      const first = lines.findIndex((l) => l.trim() !== '');
      const next = lines.slice(first + 1).find((l) => l.trim() !== '') ?? '';
      if (!/^# \S/.test(lines[first] ?? '')) return [`${doc.path}: does not open with a '# Title' line`];
      if (!/^[A-Za-z`*]/.test(next) || /^[-*] /.test(next)) return [`${doc.path}: the line after the title is not a sentence: ${JSON.stringify(next)}`];
      return [];
    });
    expect(problems).toEqual([]);
  });

  it('every relative link and anchor leads somewhere', () => {
    const broken = all.flatMap((doc) =>
      relativeLinks(doc).flatMap(({ target, line }) => {
        const why = brokenLink(doc, target);
        return why ? [`${doc.path}:${line}: (${target}) ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('the link check itself catches a missing file and a missing anchor', () => {
    const doc = byPath.get('README.md')!;
    expect(brokenLink(doc, 'docs/no-such-doc.md')).toMatch(/does not exist/);
    expect(brokenLink(doc, 'docs/api.md#no-such-section')).toMatch(/no heading/);
    expect(brokenLink(doc, '#start-here')).toBeUndefined();
  });
});

describe('slug', () => {
  it('gives the anchors GitHub gives', () => {
    expect(slug('Reaching avalanchego validators (Fuji, mainnet)')).toBe('reaching-avalanchego-validators-fuji-mainnet');
    expect(slug('I/O shards (`p2p.ioShards`)')).toBe('io-shards-p2pioshards');
    expect(slug("Running a validator's signer")).toBe('running-a-validators-signer');
    expect(slug('Fewest signers at 1,000 validators')).toBe('fewest-signers-at-1000-validators');
    expect(slug('What `warpgate` does — today')).toBe('what-warpgate-does--today');
  });
});
