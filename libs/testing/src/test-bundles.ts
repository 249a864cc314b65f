import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(__dirname, '../../..');

/** The entry points tests start as processes, many times per run. */
export const BUNDLED_ENTRIES = [
  'services/gateway/src/main.ts',
  'services/event-log/src/main.ts',
  'services/matcher/src/main.ts',
  'services/runner/src/main.ts',
  'services/approvals/src/main.ts',
  'services/notifier/src/main.ts',
  'scripts/admin.ts',
  'libs/testing/src/test-mcp-server-stdio.ts',
] as const;

/** Set by the jest global setup: the folder of this run's bundles. */
const BUNDLES_ENV = 'SY_TEST_BUNDLES';

const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

/**
 * Every package outside the repo stays a `require` of the very file Node would
 * resolve from the importing source file (nested node_modules included), so a
 * bundle loads the same code `node --import tsx` does. The repo's own sources
 * (the @switchyard workspaces, relative imports) are bundled, each with its own
 * `__dirname`, so paths computed from it still point into the repo.
 */
const sameResolution: Plugin = {
  name: 'same-resolution',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, (args) => {
      if (builtins.has(args.path)) return { path: args.path, external: true };
      if (args.path.startsWith('@switchyard/')) return undefined;
      return { path: require.resolve(args.path, { paths: [args.resolveDir] }), external: true };
    });
    pluginBuild.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll('__dirname', JSON.stringify(path.dirname(args.path))),
      loader: 'ts',
    }));
  },
};

/**
 * Why this exists: a test run starts services, the admin CLI and the stdio MCP
 * server hundreds of times, and `node --import tsx` compiles each one's module
 * graph at every start (about a second and a half of CPU). The global setup
 * bundles each entry once per run; spawns then load one plain file.
 */
export async function buildTestBundles(outDir = path.join(ROOT, 'node_modules/.cache/switchyard-test-bundles', String(process.pid))): Promise<string> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: BUNDLED_ENTRIES.map((entry) => ({ in: path.join(ROOT, entry), out: entry.replace(/\.ts$/, '') })),
    outdir: outDir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
    plugins: [sameResolution],
  });
  process.env[BUNDLES_ENV] = outDir;
  return outDir;
}

/** Removes this run's bundles (the global teardown). */
export function removeTestBundles(): void {
  const dir = process.env[BUNDLES_ENV];
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/**
 * The node arguments that run a TypeScript entry of the repo (a path from its
 * root, or absolute): its bundle when this run built one, else through tsx.
 */
export function nodeArgsFor(entry: string): string[] {
  const relative = path.isAbsolute(entry) ? path.relative(ROOT, entry) : entry;
  const dir = process.env[BUNDLES_ENV];
  const bundle = dir && (BUNDLED_ENTRIES as readonly string[]).includes(relative) ? path.join(dir, relative.replace(/\.ts$/, '.cjs')) : undefined;
  return bundle && existsSync(bundle) ? ['--enable-source-maps', bundle] : ['--import', 'tsx', entry];
}
