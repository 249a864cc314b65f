import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { createMigrationAdapterFactory, createMigrationPool } from './migration-adapter';

/**
 * The package is ESM-only: a dynamic import() is the way in from CommonJS (tsx and plain Node
 * keep it an import; TypeScript's node16 mode does too). The module's types are taken from this
 * expression because a static type import of ESM from CommonJS needs TypeScript's
 * `resolution-mode` attribute, which not every transpiler in the toolchain accepts.
 */
const importGlue = () => import('@prisma/schema-engine-wasm/schema_engine_bg');

/** The wasm-bindgen glue module of `@prisma/schema-engine-wasm`. */
type SchemaEngineModule = Awaited<ReturnType<typeof importGlue>>;

/** An engine instance: the class Prisma's migrate commands drive. */
export type SchemaEngine = Awaited<ReturnType<SchemaEngineModule['SchemaEngine']['new']>>;

/** The migrations folder as the engine takes it (`prisma migrate deploy`'s view of the folder). */
export type MigrationList = Parameters<SchemaEngine['applyMigrations']>[0]['migrationsList'];

/** The part of the WebAssembly API used here; @types/node 20 does not declare the global. */
interface WebAssemblyApi {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, Record<string, unknown>>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
}

/** One log line of the schema engine, as it emits it (tracing JSON). */
export interface SchemaEngineLogEntry {
  /** `TRACE` … `ERROR`. */
  level: string;
  /** `message` plus whatever fields the engine attached (e.g. `script` when applying). */
  fields: Record<string, unknown> & { message?: string };
  /** The Rust module that logged. */
  target?: string;
}

/** Receives the engine's log lines; most are `INFO` progress lines. */
export type SchemaEngineLog = (entry: SchemaEngineLogEntry) => void;

/** Options of {@link openSchemaEngine}. */
export interface OpenSchemaEngineOptions {
  /**
   * Database the engine connects to. It connects while being created, even when it will only
   * diff two schemas, so this must be a reachable database (any one on the server will do then).
   */
  databaseUrl: string;
  /**
   * Prisma schema files as `[path, content]`; at least one. The engine panics on an empty list,
   * so this is checked before anything is loaded.
   */
  datamodels: [string, string][];
  /** Receives the engine's log lines. @defaultValue lines are dropped */
  log?: SchemaEngineLog;
  /** Connections the engine may open. @defaultValue 2 */
  poolMax?: number;
  /** How long to wait for a connection before failing, in ms. @defaultValue 10000 */
  connectionTimeoutMillis?: number;
}

/** An engine plus the pool it runs on. */
export interface OpenSchemaEngine {
  engine: SchemaEngine;
  /** Frees the wasm-side engine and ends its pool. Idempotent. */
  close(): Promise<void>;
}

let modulePromise: Promise<SchemaEngineModule> | undefined;

/**
 * Loads Prisma's schema engine compiled to WebAssembly, once per process.
 *
 * The package's entry (`schema_engine.js`) does `import * as wasm from "./schema_engine_bg.wasm"`,
 * which Node 20 accepts only with `--experimental-wasm-modules`. We do what that entry does by
 * hand: import the JS glue, instantiate the `.wasm` bytes with the glue as the import object,
 * hand the exports back with `__wbg_set_wasm` and run `__wbindgen_start`. The glue keeps the
 * instance in a module-level variable, so one instantiation serves every engine.
 */
export function loadSchemaEngineModule(): Promise<SchemaEngineModule> {
  modulePromise ??= instantiate().catch((err: unknown) => {
    // Let a later call retry instead of caching the failure.
    modulePromise = undefined;
    throw err;
  });
  return modulePromise;
}

async function instantiate(): Promise<SchemaEngineModule> {
  installPanicRegistry();
  const glue = await importGlue().catch((err: unknown) => {
    // jest turns import() into its own require, which cannot load ES modules from node_modules
    // (and jest 30 routes node:module's createRequire through it too).
    if ((err as { code?: string }).code !== 'ERR_REQUIRE_ESM') throw err;
    throw new Error(
      'the schema engine is an ES module this runtime cannot import (jest?): run migrations in a ' +
        'child process, e.g. `tsx libs/db/src/cli/migrate.ts`',
      { cause: err },
    );
  });
  // The package's `exports` does not list the .wasm file, so locate it next to the glue.
  const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const bytes = await readFile(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm'));
  const imports: Record<string, unknown> = { ...glue };
  // The engine arms 10 s timers (e.g. around applyMigrations) and never clears them: the glue
  // imports no clearTimeout. Unreferenced, they no longer hold the process open after the work
  // is done; while the engine works, its database sockets keep the event loop alive.
  for (const name of Object.keys(glue).filter((key) => key.startsWith('__wbg_setTimeout_'))) {
    imports[name] = (callback: () => void, ms: number) => setTimeout(callback, ms >>> 0).unref();
  }
  const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
  const { instance } = await wasm.instantiate(bytes, { './schema_engine_bg.js': imports });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
  return glue;
}

/**
 * The engine reports a Rust panic by calling `global.PRISMA_WASM_PANIC_REGISTRY.set_message`
 * before trapping; without that object the report itself throws a TypeError that hides the
 * panic message. Prisma's CLI installs one; we install ours unless one exists.
 */
function installPanicRegistry(): void {
  const holder = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
  holder.PRISMA_WASM_PANIC_REGISTRY ??= {
    set_message(message: string) {
      // Written synchronously: the trap that follows is thrown outside any promise we hold, so
      // it ends the process before an asynchronous warning would be printed.
      process.stderr.write(`schema engine panic: ${message}\n`);
    },
  };
}

/**
 * Creates a schema engine connected to `databaseUrl` through `@prisma/adapter-pg`.
 *
 * Always `close()` it: the pool is ours (see {@link createMigrationPool}) and is not ended by
 * freeing the engine. The adapter factory goes through `bindMigrationAwareSqlAdapterFactory`
 * because the engine calls the adapter's methods unbound.
 */
export async function openSchemaEngine(options: OpenSchemaEngineOptions): Promise<OpenSchemaEngine> {
  if (options.datamodels.length === 0) {
    throw new Error('openSchemaEngine: datamodels must hold at least one Prisma schema file');
  }
  const mod = await loadSchemaEngineModule();
  const pool = createMigrationPool(options);
  const factory = bindMigrationAwareSqlAdapterFactory(createMigrationAdapterFactory(pool));
  const log = options.log;
  const onLog = (line: string): void => {
    if (log) log(parseLogLine(line));
  };
  let engine: SchemaEngine;
  try {
    engine = await mod.SchemaEngine.new({ datamodels: options.datamodels }, onLog, factory);
  } catch (err) {
    await pool.end();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    engine,
    close() {
      closing ??= (async () => {
        try {
          engine.free();
        } finally {
          await pool.end();
        }
      })();
      return closing;
    },
  };
}

/** The engine sends tracing events as JSON strings; keep anything else as a plain message. */
function parseLogLine(line: string): SchemaEngineLogEntry {
  try {
    const parsed = JSON.parse(line) as Partial<SchemaEngineLogEntry>;
    return { level: parsed.level ?? 'INFO', fields: parsed.fields ?? {}, target: parsed.target };
  } catch {
    return { level: 'INFO', fields: { message: line } };
  }
}
