import type { SchemaEngineLogEntry } from '../schema-engine';

/** The database `npm run db:migrate` targets when DATABASE_URL is unset: local development. */
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/switchyard';

/** DATABASE_URL, or {@link DEFAULT_DATABASE_URL}. The CLIs are entry points, so they read the environment. */
export function databaseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_URL || DEFAULT_DATABASE_URL;
}

/** Host, port and database of a URL, without credentials, for messages. */
export function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}

/** Shows the schema engine's warnings and errors on stderr; its INFO progress lines are noise here. */
export function printEngineProblems(entry: SchemaEngineLogEntry): void {
  if (entry.level === 'WARN' || entry.level === 'ERROR') {
    console.error(`schema engine ${entry.level.toLowerCase()}: ${entry.fields.message ?? JSON.stringify(entry.fields)}`);
  }
}

/** Runs a CLI's main, printing a failure's message (not a stack: engine errors carry their own trace) and setting the exit code. */
export function runCli(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
