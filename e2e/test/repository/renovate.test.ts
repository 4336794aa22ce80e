/**
 * The dependency updates (renovate.json): every version pinned, the frozen upstream held back
 * with its reason, related packages grouped, and every package a rule names one the repository
 * depends on (a rule for a package gone is a rule that silently does nothing).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repository } from '../workspaces.js';

interface Rule {
  description?: string;
  matchPackageNames?: string[];
  groupName?: string;
  enabled?: boolean;
  allowedVersions?: string;
}
const config = JSON.parse(readFileSync(join(repository, 'renovate.json'), 'utf8')) as {
  rangeStrategy: string;
  packageRules: Rule[];
};

/** Every package the repository's manifests name, with the range each gives. */
const dependencies = new Map<string, string>();
for (const manifest of [
  'package.json',
  'openapi/package.json',
  'e2e/package.json',
  ...readdirSync(join(repository, 'packages')).map((name) => `packages/${name}/package.json`),
  ...readdirSync(join(repository, 'apps')).map((name) => `apps/${name}/package.json`),
]) {
  const json = JSON.parse(readFileSync(join(repository, manifest), 'utf8'));
  for (const field of ['dependencies', 'devDependencies']) {
    for (const [name, range] of Object.entries<string>(json[field] ?? {}))
      dependencies.set(name, range);
  }
}
const ruleFor = (name: string) =>
  config.packageRules.find((rule) => rule.matchPackageNames?.includes(name));

describe('renovate.json', () => {
  it('pins every version, as the repository does', () => {
    expect(config.rangeStrategy).toBe('pin');
    const ranges = [...dependencies]
      .filter(
        ([name, range]) =>
          !name.startsWith('@institution-api/') && !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range),
      )
      .map(([name, range]) => `${name}@${range}`);
    expect(ranges).toEqual([]);
  });

  it('holds back the frozen upstream, saying why', () => {
    for (const name of ['openapi-typescript', 'openapi-fetch']) {
      const rule = ruleFor(name);
      expect(rule?.enabled, name).toBe(false);
      expect(rule?.description).toMatch(/#2874/);
    }
    expect(ruleFor('typescript')?.allowedVersions).toBe('<6');
  });

  it('groups what moves together', () => {
    expect(ruleFor('@modelcontextprotocol/**')?.groupName).toBe('MCP SDK');
    expect(ruleFor('express')).toBe(ruleFor('express-openapi-validator'));
    expect(ruleFor('vitest')).toBe(ruleFor('turbo'));
    expect(ruleFor('vitest')).toBe(ruleFor('@biomejs/biome'));
    expect(ruleFor('ajv')).toBe(ruleFor('ajv-formats'));
  });

  it('names only packages the repository depends on', () => {
    const unknown = config.packageRules
      .flatMap((rule) => rule.matchPackageNames ?? [])
      .filter((name) => !name.endsWith('/**'))
      .filter((name) => !dependencies.has(name) && name !== 'openapi-typescript-helpers');
    expect(unknown).toEqual([]);
    for (const pattern of config.packageRules.flatMap((rule) => rule.matchPackageNames ?? [])) {
      if (!pattern.endsWith('/**')) continue;
      const scope = pattern.slice(0, -2);
      expect(
        [...dependencies.keys()].some((name) => name.startsWith(scope)),
        pattern,
      ).toBe(true);
    }
  });
});
