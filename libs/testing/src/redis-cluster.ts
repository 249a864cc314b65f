import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { closeRedis, createRedis, type Redis } from '@switchyard/redis';
import { freePort } from './free-port';
import { RedisServer } from './redis-server';
import { waitFor } from './wait-for';

/** Options of RedisCluster.start. */
export interface RedisClusterOptions {
  /** Each master fsyncs every write before acknowledging it (see RedisServerOptions). @defaultValue false */
  durable?: boolean;
  /**
   * The key (or hash tag, `{chaos}`) whose master `restart` kills: the one
   * holding the platform's keys, so the kill is felt.
   * @defaultValue `{sy}`
   */
  busyKey?: string;
}

/**
 * Why this exists: proving the platform on a Redis Cluster (decision 0061)
 * needs a cluster a test may break, without Docker and without touching the
 * shared Redis: three `redis-server --cluster-enabled yes` masters of its own
 * on free ports, joined by `redis-cli --cluster create`.
 */
export class RedisCluster {
  private constructor(
    readonly masters: RedisServer[],
    private readonly options: RedisClusterOptions,
  ) {}

  /** Starts three masters, joins them (slots split evenly) and waits until the cluster is ok. */
  static async start(options: RedisClusterOptions = {}): Promise<RedisCluster> {
    const masters: RedisServer[] = [];
    try {
      for (let i = 0; i < 3; i++) masters.push(await RedisServer.start({ durable: options.durable, clusterBusPort: await freePort() }));
      const nodes = masters.map((m) => `127.0.0.1:${m.port}`);
      await promisify(execFile)('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
      const cluster = new RedisCluster(masters, options);
      await cluster.waitUntilOk();
      return cluster;
    } catch (error) {
      await Promise.all(masters.map((m) => m.stop()));
      throw error;
    }
  }

  /** `redis-cluster://` with every master: what REDIS_URL is set to. */
  get url(): string {
    return `redis-cluster://${this.masters.map((m) => `127.0.0.1:${m.port}`).join(',')}`;
  }

  /** The pid of the master `restart` kills. */
  get pid(): number | undefined {
    return this.masters[0]?.pid;
  }

  /**
   * SIGKILLs the master that holds `busyKey`'s slot, starts it again on its
   * port and files (it rejoins with its slots) and waits until the cluster is ok.
   */
  async restart(): Promise<void> {
    const master = await this.masterOf(this.options.busyKey ?? '{sy}');
    await master.restart();
    await this.waitUntilOk();
  }

  /** Stops every master for good and removes their files. */
  async stop(): Promise<void> {
    await Promise.all(this.masters.map((m) => m.stop()));
  }

  private async masterOf(key: string): Promise<RedisServer> {
    const slot = await this.onNode(this.masters[0]!, (r) => r.cluster('KEYSLOT', key));
    const ranges = await this.onNode(this.masters[0]!, (r) => r.cluster('SLOTS'));
    const owner = ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1];
    return this.masters.find((m) => m.port === owner)!;
  }

  private async waitUntilOk(): Promise<void> {
    await waitFor(
      async () => {
        const states = await Promise.all(this.masters.map((m) => this.onNode(m, (r) => r.cluster('INFO')).catch(() => '')));
        return states.every((info) => info.includes('cluster_state:ok'));
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'redis cluster state ok' },
    );
  }

  /** A command on one node itself (not through the cluster's routing). */
  private async onNode<T>(master: RedisServer, command: (redis: Redis) => Promise<T>): Promise<T> {
    const redis = createRedis(master.url, { connectionName: 'redis-cluster-admin', maxRetriesPerRequest: 0 });
    redis.on('error', () => undefined);
    try {
      return await command(redis);
    } finally {
      await closeRedis(redis);
    }
  }
}
