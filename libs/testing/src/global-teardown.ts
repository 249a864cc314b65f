import { adminQuery } from './test-database';
import { templateDatabase } from './infra';
import { stopContainers } from './containers';

/** Drops this run's template database and stops any containers (see global-setup). */
export default async function globalTeardown(): Promise<void> {
  if (process.env.SY_TEST_TEMPLATE) await adminQuery(`DROP DATABASE IF EXISTS "${templateDatabase()}" WITH (FORCE)`);
  await stopContainers();
}
