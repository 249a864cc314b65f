/**
 * `npm run chaos [-- --rate N --duration S --kills LIST --quiesce-timeout S --keep]`:
 * the whole-mesh chaos harness (docs/chaos.md). Exits 0 when every check
 * passed, 1 on any violation or error.
 */
import { cleanUp, runChaos, type ChaosResources } from './harness';
import { parseChaosOptions } from './options';

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const options = parseChaosOptions(process.argv.slice(2));
  const resources: ChaosResources = {};
  // An interrupted harness still stops what it started: left running, it would load the machine.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      resources.mesh?.killAll();
      void resources.redis?.stop().finally(() => {
        log(`chaos: ${signal}; database left behind: ${resources.databaseUrl ?? 'none'}`);
        process.exit(1);
      });
    });
  }
  process.on('exit', () => resources.mesh?.killAll());
  try {
    process.exitCode = (await runChaos(options, resources, log)) ? 0 : 1;
  } finally {
    await cleanUp(resources, options.keep, log);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
