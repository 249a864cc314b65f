import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareInstall, installState } from '../lib/install-state.cjs';

/*
 * Issue 13: `npm start` reinstalled node_modules copied along with a fresh clone, because it
 * compared file times. The decision now compares package-lock.json with npm's own record of
 * what it installed (node_modules/.package-lock.json).
 */
const entry = (version: string, extra: Record<string, unknown> = {}) => ({
  version,
  resolved: `https://registry.npmjs.org/pkg/-/pkg-${version}.tgz`,
  integrity: `sha512-${version}`,
  ...extra,
});
const lockOf = (packages: Record<string, unknown>) => ({
  name: 'switchyard',
  lockfileVersion: 3,
  packages: { '': { name: 'switchyard', devDependencies: { a: '1.0.0' } }, ...packages },
});
const installedOf = (packages: Record<string, unknown>) => ({ name: 'switchyard', lockfileVersion: 3, packages });

describe('compareInstall', () => {
  const lock = lockOf({
    'node_modules/a': entry('1.0.0', { dev: true }),
    'node_modules/@switchyard/config': { resolved: 'libs/config', link: true },
    'node_modules/esbuild-darwin': entry('0.1.0', { optional: true, os: ['darwin'] }),
  });
  const installed = installedOf({
    // Same entry, keys in another order.
    'node_modules/a': { dev: true, integrity: 'sha512-1.0.0', resolved: 'https://registry.npmjs.org/pkg/-/pkg-1.0.0.tgz', version: '1.0.0' },
    'node_modules/@switchyard/config': { resolved: 'libs/config', link: true },
  });

  it('is current when what npm installed is what the lock asks for, other platforms skipped', () => {
    expect(compareInstall({ lock, installed })).toEqual({ current: true });
  });

  it.each([
    ['no lock', null, installed, 'no package-lock.json'],
    ['no record of an npm install', lock, null, 'node_modules was not installed by npm (no node_modules/.package-lock.json)'],
    [
      'another version installed',
      lock,
      installedOf({ ...installed.packages, 'node_modules/a': entry('1.0.1', { dev: true }) }),
      'node_modules/a differs from package-lock.json',
    ],
    [
      'a package the lock no longer has',
      lock,
      installedOf({ ...installed.packages, 'node_modules/b': entry('2.0.0') }),
      'node_modules/b is installed but not in package-lock.json',
    ],
    [
      'a required package missing',
      lockOf({ ...lock.packages, 'node_modules/c': entry('3.0.0') }),
      installed,
      'node_modules/c is not installed',
    ],
  ])('reinstalls with %s', (_what, lockFile, installedFile, reason) => {
    expect(compareInstall({ lock: lockFile, installed: installedFile })).toEqual({ current: false, reason });
  });
});

describe('installState', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'install-state-'));
    mkdirSync(path.join(root, 'node_modules'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('keeps a copied node_modules whose lock is newer but equal in content (a fresh clone)', () => {
    const lockFile = path.join(root, 'package-lock.json');
    const installedFile = path.join(root, 'node_modules', '.package-lock.json');
    writeFileSync(lockFile, JSON.stringify(lockOf({ 'node_modules/a': entry('1.0.0') })));
    writeFileSync(installedFile, JSON.stringify(installedOf({ 'node_modules/a': entry('1.0.0') })));
    utimesSync(installedFile, new Date('2020-01-01'), new Date('2020-01-01'));
    expect(installState(root)).toEqual({ current: true });
  });

  it('reinstalls when npm’s record is not JSON (an interrupted install)', () => {
    writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify(lockOf({})));
    writeFileSync(path.join(root, 'node_modules', '.package-lock.json'), '{"packages": {');
    expect(installState(root)).toEqual({ current: false, reason: 'node_modules was not installed by npm (no node_modules/.package-lock.json)' });
  });

  it('finds this repository’s own node_modules current', () => {
    expect(installState(path.resolve(__dirname, '../..'))).toEqual({ current: true });
  });
});

/**
 * Whether Node `version` satisfies an `engines.node` range, for the forms the lock holds:
 * alternatives joined by `||`, each a list of `>=X`, `^X`, `X`, `X.*` / `X.x`.
 */
function nodeSatisfies(range: string, version: string): boolean {
  const parse = (text: string) => text.replace(/\.[x*]/g, '').split('.').map(Number);
  const compare = (a: number[], b: number[]) => {
    for (let i = 0; i < 3; i += 1) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const have = parse(version.replace(/^v/, ''));
  const holds = (comparator: string) => {
    const [, op, wanted] = /^(>=|\^)?\s*(.+)$/.exec(comparator)!;
    const want = parse(wanted!);
    if (op === '>=') return compare(have, want) >= 0;
    // ^X.Y.Z and a bare X(.Y): the same major, at least that version.
    return have[0] === want[0] && compare(have, want) >= 0;
  };
  return range.split('||').some((alternative) => alternative.trim().replace(/>=\s+/g, '>=').split(/\s+/).every(holds));
}

describe('the packages npm installs here', () => {
  it('understands the engine ranges it checks', () => {
    expect(nodeSatisfies('>=22.0.0', 'v20.20.2')).toBe(false);
    expect(nodeSatisfies('^18.14.0 || ^20.0.0 || ^22.0.0 || >=24.0.0', 'v20.20.2')).toBe(true);
    expect(nodeSatisfies('^20.21 || >=24', 'v20.20.2')).toBe(false);
    expect(nodeSatisfies('>= 10.x', 'v20.20.2')).toBe(true);
    expect(nodeSatisfies('6.* || 8.* || >= 10.*', 'v9.0.0')).toBe(false);
    expect(nodeSatisfies('>=16 || 14 >=14.17', 'v14.16.0')).toBe(false);
  });

  it('all accept the running Node (npm ci prints no engine warning)', () => {
    const installed = JSON.parse(readFileSync(path.resolve(__dirname, '../../node_modules/.package-lock.json'), 'utf8'));
    const refusing = Object.entries(installed.packages as Record<string, { engines?: { node?: string } }>)
      .filter(([, entry]) => typeof entry.engines?.node === 'string' && !nodeSatisfies(entry.engines.node, process.version))
      .map(([name, entry]) => `${name} wants node ${entry.engines!.node}`);
    expect(refusing).toEqual([]);
  });
});
