import { readFunctionFiles, type FunctionFile, type SqlTransactions } from '@switchyard/db';

/** A function whose file and database disagree. */
export interface FunctionDrift {
  name: string;
  /** `missing`: not in the database; `overloaded`: several of that name; `differs`: another definition. */
  problem: 'missing' | 'overloaded' | 'differs';
  /** The database's definition (pg_get_functiondef), when there is one. */
  database?: string;
  /** The file's definition as PostgreSQL prints it, when it differs. */
  file?: string;
}

/** The scratch schema the files are created in; the transaction that creates it rolls back. */
const SCRATCH = 'sy_function_files';

/**
 * Compares each function file of libs/runs/sql with the function of that name in the database's
 * `public` schema, as PostgreSQL prints both (`pg_get_functiondef`): the file is executed in a
 * scratch schema inside a transaction that rolls back, so whitespace, quoting and the type names
 * are printed the same way on both sides and only a real difference remains. Returns the
 * functions that disagree (none on a database migrated from the current files).
 */
export async function functionDrift(sql: SqlTransactions, files?: readonly FunctionFile[]): Promise<FunctionDrift[]> {
  const sources = files ?? (await readFunctionFiles());
  const drift: FunctionDrift[] = [];
  await sql
    .transaction(async (tx) => {
      await tx.$executeRawUnsafe(`CREATE SCHEMA ${SCRATCH}`);
      await tx.$executeRawUnsafe(`SET LOCAL search_path = ${SCRATCH}, public`);
      for (const file of sources) {
        await tx.$executeRawUnsafe(file.sql);
        const defs = await tx.$queryRawUnsafe<Array<{ schema: string; def: string }>>(
          `SELECT n.nspname AS schema, pg_get_functiondef(p.oid) AS def
             FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE p.proname = $1 AND n.nspname IN ('public', '${SCRATCH}')`,
          file.name,
        );
        const inDatabase = defs.filter((row) => row.schema === 'public');
        const fromFile = defs.find((row) => row.schema === SCRATCH)!.def.replace(`FUNCTION ${SCRATCH}.`, 'FUNCTION public.');
        if (inDatabase.length === 0) drift.push({ name: file.name, problem: 'missing' });
        else if (inDatabase.length > 1) drift.push({ name: file.name, problem: 'overloaded' });
        else if (inDatabase[0]!.def !== fromFile) drift.push({ name: file.name, problem: 'differs', database: inDatabase[0]!.def, file: fromFile });
      }
      // Nothing of the comparison stays: the scratch schema and its functions roll back.
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return drift;
}

class RolledBack extends Error {}
