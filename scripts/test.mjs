#!/usr/bin/env node
// `npm test`: every test of the repo, from a fresh clone, in one command.
//
//   1. installs dependencies unless node_modules matches package-lock.json (by content);
//   2. generates the Prisma client;
//   3. finds Redis and PostgreSQL exactly like `npm start` (REDIS_URL / DATABASE_URL, else the
//      local default ports, else starts redis-server and an embedded PostgreSQL);
//   4. runs jest (its global setup migrates a template database the test files clone),
//      then stops what it started.
//
// Environment: the same as scripts/start.mjs, plus
//   JEST_JSON_OUTPUT=FILE   also write jest's JSON results there (CI reads its counts)
// Arguments after `--` go to jest: `npm test -- services/gateway`.
import path from 'node:path';
import {
  env,
  fail,
  installDependencies,
  npm,
  resolvePostgres,
  resolveRedis,
  root,
  setTag,
  spawnChild,
  stopEverything,
} from './lib/local-infra.mjs';

async function main() {
  setTag('test');
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void stopEverything(130));
  await installDependencies();
  if (!npm(['run', 'db:generate'])) return fail('npm run db:generate failed');
  env.REDIS_URL = (await resolveRedis()).url;
  env.DATABASE_URL = (await resolvePostgres()).url;
  const args = [path.join(root, 'node_modules/jest/bin/jest.js')];
  if (env.JEST_JSON_OUTPUT) args.push('--json', `--outputFile=${env.JEST_JSON_OUTPUT}`);
  args.push(...process.argv.slice(2));
  const jest = spawnChild('jest', process.execPath, args, { detached: false, stdio: 'inherit' });
  await stopEverything(await jest.exited);
}

main().catch((error) => fail(error instanceof Error ? error.stack : String(error)));
