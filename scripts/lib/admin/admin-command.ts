import { parseArgs, type ParseArgsConfig } from 'node:util';
import { BaseEnvSchema, loadConfig, type BaseConfig } from '@switchyard/config';
import { SqlPool } from '@switchyard/db';
import { closeRedis, createRedis, type Redis } from '@switchyard/redis';
import type { z } from 'zod';
import { textTable } from '../text-table';

/**
 * What a command of `npm run admin` is given: the operator's configuration (DATABASE_URL and
 * REDIS_URL of the running platform, see operator-env.ts) and its servers, each opened at the
 * first use and closed once the command ends.
 */
export interface AdminContext {
  config: BaseConfig;
  /** The platform's PostgreSQL (one connection). */
  sql(): SqlPool;
  /** The platform's Redis. */
  redis(): Redis;
  /** Prints one line of the command's result on stdout (messages about it go to stderr). */
  print(line: string): void;
}

/** One command of `npm run admin`: a line of the command table in scripts/admin.ts. */
export interface AdminCommand {
  /** Its arguments after its name, as the usage text shows them (`<workspace> --role <role>`). */
  usage: string;
  /** What it does, in a few words. */
  summary: string;
  run(args: string[], context: AdminContext): Promise<void>;
}

/** A command line that cannot be run as given: its message says what is wrong, then the usage is shown. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The context of one command; `close` releases what it opened. */
export function openAdminContext(env: NodeJS.ProcessEnv = process.env): AdminContext & { close(): Promise<void> } {
  const config = loadConfig(BaseEnvSchema, env);
  let sql: SqlPool | undefined;
  let redis: Redis | undefined;
  return {
    config,
    sql: () => (sql ??= new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: 1, applicationName: 'admin' })),
    redis: () => (redis ??= createRedis(config.REDIS_URL)),
    print: (line) => console.log(line),
    close: async () => {
      await Promise.allSettled([sql?.$disconnect(), redis ? closeRedis(redis) : undefined]);
    },
  };
}

/**
 * A command's arguments: at most `positionals` positionals and its `--options` (node's
 * parseArgs, strict: an unknown option, a missing value or an extra argument is a UsageError).
 */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], positionals: number, options: O) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const unknown = /^Unknown option '([^']+)'/.exec((error as Error).message);
    throw new UsageError(unknown ? `unknown option ${unknown[1]}` : (error as Error).message);
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[positionals])}`);
  return parsed;
}

/** `input` parsed by `schema`, or a UsageError naming each problem as the schema words it. */
export function parseCommandInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new UsageError(parsed.error.issues.map((issue) => issue.message).join('; '));
}

/** How a listing command prints its items: a table under `header`, or with `--json` one JSON object per line. */
export interface ListingFormat<T> {
  header: string[];
  row(item: T): string[];
  /** The item as its JSON line. @defaultValue the item itself */
  json?(item: T): unknown;
}

/** Prints a listing (list-members, list-tokens): with `json`, one JSON object a line, for scripts; else a table. */
export function printListing<T>(print: AdminContext['print'], json: boolean | undefined, items: readonly T[], format: ListingFormat<T>): void {
  if (json) {
    for (const item of items) print(JSON.stringify(format.json ? format.json(item) : item));
    return;
  }
  print(textTable([format.header, ...items.map((item) => format.row(item))]));
}
