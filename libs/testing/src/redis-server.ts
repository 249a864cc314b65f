import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeRedis, createRedis } from '@switchyard/redis';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

/** Options of RedisServer.start. */
export interface RedisServerOptions {
  /**
   * Every write fsynced to an append-only file before it is acknowledged: a
   * SIGKILL and restart lose nothing acknowledged (the chaos harness). Off:
   * no persistence at all, so a restart comes back empty, as an outage may.
   * @defaultValue false
   */
  durable?: boolean;
  /**
   * Starts it as a Redis Cluster node (`--cluster-enabled yes`) with its bus on
   * this port; RedisCluster joins such nodes into a cluster.
   */
  clusterBusPort?: number;
}

/**
 * Why this exists: a test that takes Redis down must not stop the shared
 * Redis other engineers use. This is a redis-server of the test's own, on a
 * free port and a temporary directory, that it may kill and start again.
 */
export class RedisServer {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'sy-redis-'));

  private constructor(
    readonly port: number,
    private readonly options: RedisServerOptions,
  ) {}

  /** Starts one and waits until it answers PING. */
  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), options);
    await server.up();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The pid of the running server (for a kill log). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** SIGKILLs the server, waits for it to be gone, and starts it again on the same port and files. */
  async restart(): Promise<void> {
    await this.down();
    await this.up();
  }

  /** Stops the server for good and removes its files. */
  async stop(): Promise<void> {
    await this.down();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** SIGKILLs the server (if it runs) and waits until it is gone: Redis is down until `up`. */
  async down(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }

  /** Starts the server on its port and waits until it answers PING. */
  async up(): Promise<void> {
    const persistence = this.options.durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const bus = this.options.clusterBusPort;
    const cluster = bus === undefined ? [] : ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(bus), '--cluster-node-timeout', '2000'];
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, ...persistence, '--save', '', '--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--logfile', path.join(this.dir, 'redis.log'), ...cluster];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.child = child;
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      const probe = createRedis(this.url, { connectionName: 'redis-server-probe' });
      // Refused until the server listens: the ping's rejection says so, the event need not.
      probe.on('error', () => undefined);
      try {
        return (await probe.ping()) === 'PONG';
      } finally {
        await closeRedis(probe);
      }
    }, { timeoutMs: 15_000, intervalMs: 50, what: 'redis-server' });
  }
}
