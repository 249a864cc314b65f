#!/usr/bin/env node
// `npm start`: Switchyard on one machine, from a fresh clone, in one command.
//
//   0. claims the platform file (.data/platform.json, created exclusively): when another
//      `npm start` holds it, says which (pid, gateway URL) and stops, having touched nothing;
//      a file left by a start that is gone is taken over (scripts/lib/platform-claim.cjs).
//      Then stops with a clear message when another program holds one of its ports;
//   1. installs dependencies unless node_modules matches package-lock.json (by content);
//   2. generates the Prisma client, and builds the web UI when its sources changed (scripts/build-ui.mjs);
//      these two and steps 3–5 run side by side, as none needs another (on a fresh clone they
//      are most of the time to ready);
//   3. finds Redis: REDIS_URL, else a Redis answering on 127.0.0.1:6379, else starts
//      `redis-server` (data in .data/redis, append-only file on);
//   4. finds PostgreSQL: DATABASE_URL, else a server on 127.0.0.1:5432 (database
//      `switchyard`), else an embedded PostgreSQL on port 5433 (data in .data/postgres);
//   5. applies the migrations, and takes SECRETS_KEY from the environment, else from
//      .data/secrets.key (generated there on the first run);
//   6. runs every service in one process (scripts/start-all.ts); once the gateway answers,
//      records the servers it chose in .data/platform.json (what `npm run admin` connects to
//      when DATABASE_URL / REDIS_URL are unset) and prints the web UI, how to sign in, the
//      dashboard's state and what runs where;
//   7. runs until Ctrl+C or SIGTERM, then stops the services first and what it started for
//      them last, and removes the record.
//
// Plain Node.js with no dependencies: it must run before `npm install` has.
//
// Environment:
//   REDIS_URL, DATABASE_URL   use these servers and start none
//   SWITCHYARD_REDIS_PORT     port to look for or start Redis on (default 6379)
//   SWITCHYARD_EMBEDDED_PG=1  use the embedded PostgreSQL even when port 5432 answers
//   SWITCHYARD_PG_DATA        its data directory (default <repo>/.data/postgres; as root it
//                             must be reachable by the `postgres` user, see embedded-postgres.mjs)
//   SWITCHYARD_PG_PORT        its port (default 5433)
//   SWITCHYARD_PLATFORM_FILE  where to record the servers (default <repo>/.data/platform.json)
//   PORT                      the gateway's port (default 8080); every other variable goes to
//                             the services as it is
import { execFile } from 'node:child_process';
import {
  env,
  fail,
  hasExited,
  installDependencies,
  isStopping,
  npmInBackground,
  redact,
  resolvePostgres,
  resolveRedis,
  resolveSecretsKey,
  root,
  say,
  spawnChild,
  started,
  stopEverything,
  waitUntil,
} from './lib/local-infra.mjs';
import { answeringHealthPorts, formatBanner, frontDoorState } from './lib/banner.cjs';
import { alreadyRunningMessage, claimPlatformFile } from './lib/platform-claim.cjs';
import { platformFilePath, removePlatformFile, writePlatformFile } from './lib/platform-file.cjs';
import { gatewayPort, portsTakenMessage, takenPorts } from './lib/platform-ports.cjs';

const platformFile = platformFilePath(root, env);
const gatewayUrl = `http://127.0.0.1:${gatewayPort(env)}`;

/** Claims the platform file for this start; false (having printed why) when another start holds it. */
async function claimed() {
  const claim = await claimPlatformFile(platformFile, { pid: process.pid, gatewayUrl });
  if (claim.ok) return true;
  console.error(claim.running ? alreadyRunningMessage(platformFile, claim.running) : `[start] ${claim.reason}`);
  return false;
}

/** Stops what this start started on a signal, and on its exit removes its claim of the platform file. */
function stopWithTheProcess() {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    // npm forwards the terminal's Ctrl+C as well, so a second signal is expected and ignored.
    process.on(signal, () => {
      if (!isStopping()) say(`${signal}: stopping`);
      void stopEverything(0);
    });
  }
  // Last resort if this script crashes: do not leave servers running without an owner.
  process.on('exit', () => {
    started.forEach(({ child }) => hasExited(child) || child.kill('SIGTERM'));
    removePlatformFile(platformFile, process.pid);
  });
}

async function main() {
  // First of all, before anything is installed, written, migrated or bound.
  if (!(await claimed())) {
    process.exitCode = 1;
    return;
  }
  stopWithTheProcess();
  const taken = await takenPorts(env);
  if (taken.length > 0) return fail(portsTakenMessage(taken));

  await installDependencies();
  // Side by side, since none needs another: on a fresh clone each takes seconds to tens of seconds.
  const [generated, uiBuilt, servers] = await Promise.all([
    npmInBackground(['run', 'db:generate']),
    npmInBackground(['run', 'ui:build']),
    Promise.all([resolveRedis(), resolvePostgres()]).then(async ([redis, postgres]) => {
      env.REDIS_URL = redis.url;
      env.DATABASE_URL = postgres.url;
      return { redis, postgres, migrated: await npmInBackground(['run', 'db:migrate']) };
    }),
  ]);
  if (!generated) return fail('npm run db:generate failed');
  if (!uiBuilt) return fail('npm run ui:build failed (the web UI)');
  const { redis, postgres, migrated } = servers;
  if (!migrated) {
    return fail(
      `migrations failed on ${redact(postgres.url)}. If that server needs a password, set DATABASE_URL; ` +
        'SWITCHYARD_EMBEDDED_PG=1 uses an embedded PostgreSQL instead.',
    );
  }
  const secretsKey = resolveSecretsKey();
  const services = spawnChild('services', process.execPath, ['--import', 'tsx', 'scripts/start-all.ts']);
  void services.exited.then((code) => {
    if (!isStopping()) say(`the services stopped (exit code ${code})`);
    return stopEverything(isStopping() ? 0 : code || 1);
  });
  const healthy = () => fetch(`${gatewayUrl}/healthz`).then((res) => res.ok);
  if (await waitUntil(healthy, { timeoutMs: 60_000, what: 'the gateway', child: services.child })) {
    writePlatformFile(platformFile, { pid: process.pid, gatewayUrl, env });
    await printBanner({ redis, postgres, secretsKey });
  }
}

/**
 * A one-time sign-in link for the first admin (decision 0042; scripts/first-sign-in.ts makes a
 * `default` workspace when there is none), or undefined — having said why — when it could not
 * be made: the banner then tells how to sign in with a token.
 */
async function firstSignInLink() {
  const made = await new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/first-sign-in.ts', gatewayUrl], { cwd: root, env, timeout: 30_000 }, (error, stdout, stderr) => {
      if (stderr.trim()) say(stderr.trim());
      resolve(error ? undefined : stdout.trim().split('\n').at(-1));
    });
  });
  try {
    return made ? JSON.parse(made) : undefined;
  } catch {
    return undefined;
  }
}

/** Prints the banner, having checked every address it names. */
async function printBanner({ redis, postgres, secretsKey }) {
  const [healthPorts, frontDoor, link] = await Promise.all([answeringHealthPorts(env), frontDoorState(gatewayUrl), firstSignInLink()]);
  const [redisAt, postgresAt] = [`${redact(redis.url)} (${redis.how})`, `${redact(postgres.url)} (${postgres.how})`];
  console.log(formatBanner({ pid: process.pid, gatewayUrl, frontDoor, healthPorts, redis: redisAt, postgres: postgresAt, secretsKey, platformFile, signInLink: link?.url }));
}

main().catch((error) => fail(error instanceof Error ? error.stack : String(error)));
