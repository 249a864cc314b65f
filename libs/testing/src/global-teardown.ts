import { adminQuery } from './test-database';
import { templateDatabase } from './infra';

/** Drops this run's template database (see global-setup). */
export default async function globalTeardown(): Promise<void> {
  if (process.env.SY_TEST_TEMPLATE) await adminQuery(`DROP DATABASE IF EXISTS "${templateDatabase()}" WITH (FORCE)`);
}
