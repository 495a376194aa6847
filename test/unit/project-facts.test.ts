/**
 * What a newcomer reads first agrees with what the project is: one supported Node range in package.json, the README,
 * CONTRIBUTING.md and the Dockerfile, which every installed package accepts and the Node type definitions describe;
 * the licence the package names is the LICENSE file's; the changelog follows Keep a Changelog with the package's
 * version (docs/decisions/0052-node-22-15-and-up.md).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseDockerfile } from '../../scripts/runtime-stage.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  version: string;
  license: string;
  engines: { node: string };
  devDependencies: Record<string, string>;
};
type Semver = {
  satisfies: (version: string, range: string) => boolean;
  minVersion: (range: string) => { major: number; minor: number; version: string } | null;
};
// semver is in node_modules through npm-facing tools (no types of its own are installed): checked as npm checks.
const semver = createRequire(import.meta.url)('semver') as Semver;
const floor = semver.minVersion(pkg.engines.node)!;

describe('the supported Node range', () => {
  it('is one range, stated alike in package.json, the README, CONTRIBUTING.md and the Dockerfile', () => {
    expect(pkg.engines.node).toBe(`>=${floor.major}.${floor.minor}`);
    const stated = `Node.js ${floor.major}.${floor.minor} or newer`;
    expect(read('README.md')).toContain(stated);
    expect(read('CONTRIBUTING.md')).toContain(stated);
    const image = parseDockerfile(read('Dockerfile')).args.NODE_IMAGE!;
    const major = Number(/^node:(\d+)-/.exec(image)?.[1]);
    expect(major % 2, `${image}: an LTS line (even major)`).toBe(0);
    expect(semver.satisfies(`${major}.0.0`, pkg.engines.node) || major > floor.major, image).toBe(true);
  });

  it('is accepted by every installed package (npm warns EBADENGINE on none of its Node versions)', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([name, p]) => name && !Array.isArray(p.engines) && p.engines?.node)
      .filter(([, p]) => {
        const range = (p.engines as { node: string }).node;
        return !semver.satisfies(floor.version, range) || !semver.satisfies('24.0.0', range);
      })
      .map(([name, p]) => `${name}: ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });

  it('is what the Node type definitions describe: @types/node of the lowest supported major', () => {
    expect(Number(/^(\d+)\./.exec(pkg.devDependencies['@types/node']!)?.[1])).toBe(floor.major);
    const installed = JSON.parse(read('node_modules/@types/node/package.json')) as { version: string };
    expect(installed.version).toBe(pkg.devDependencies['@types/node']);
  });
});

describe('licence and changelog', () => {
  it('package.json names the licence the LICENSE file holds', () => {
    expect(pkg.license).toBe('Apache-2.0');
    expect(read('LICENSE')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
  });

  it('the changelog keeps an Unreleased section first, then released versions, newest first, the latest the package', () => {
    const headings = [...read('CHANGELOG.md').matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(headings[0]).toEqual(['Unreleased', undefined]);
    const released = headings.slice(1);
    expect(released.length).toBeGreaterThan(0);
    expect(released[0]![0]).toBe(pkg.version);
    for (const [version, date] of released) {
      expect(version, 'a semantic version').toMatch(/^\d+\.\d+\.\d+$/);
      expect(date, `${version} has a date`).toBeDefined();
    }
  });
});
