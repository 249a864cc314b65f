import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { closeRedis, createRedis } from '@switchyard/redis';
import { waitFor } from '@switchyard/testing';

/** A free TCP port on 127.0.0.1 (the kernel's pick, released at once). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A redis-server of the harness's own, on a free port and a temporary
 * directory, with every write fsynced to its append-only file before it is
 * acknowledged: a SIGKILL and restart then lose nothing acknowledged, so
 * whatever the checks find missing was lost by the platform, not by Redis.
 */
export class OwnRedis {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'sy-chaos-redis-'));

  private constructor(readonly port: number) {}

  /** Starts it and waits until it answers PING. */
  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.launch();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The pid of the running server (for the kill log). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** SIGKILLs the server, waits for it to be gone, and starts it again on the same port and files. */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  /** Stops the server for good and removes its files. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }

  private async launch(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--logfile', path.join(this.dir, 'redis.log')];
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    const child = this.child;
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      const probe = createRedis(this.url, { connectionName: 'chaos-probe' });
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
