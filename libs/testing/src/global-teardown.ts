import { adminQuery } from './test-database';
import { templateDatabase } from './infra';
import { stopContainers } from './containers';
import { removeTestBundles } from './test-bundles';

/** Drops this run's template database and stops any containers and its bundles (see global-setup). */
export default async function globalTeardown(): Promise<void> {
  if (process.env.SY_TEST_TEMPLATE) await adminQuery(`DROP DATABASE IF EXISTS "${templateDatabase()}" WITH (FORCE)`);
  await stopContainers();
  removeTestBundles();
}
