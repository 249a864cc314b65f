import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

/**
 * Why this exists: whether the platform works behind PgBouncer in transaction
 * mode (docs/scaling.md) is a question for a real PgBouncer, not for reading:
 * this is one of the test's own (Debian's `pgbouncer`), on a free port, in
 * front of the test's PostgreSQL server, with few server connections so that
 * client sessions really share them.
 */
export class PgBouncer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
    private readonly user: string,
  ) {}

  /** Starts one in front of the server of `serverUrl` (any database on it), `poolSize` server connections per database. */
  static async start(serverUrl: string, poolSize = 2): Promise<PgBouncer> {
    const server = new URL(serverUrl);
    const user = decodeURIComponent(server.username || 'postgres');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sy-pgbouncer-'));
    // pgbouncer refuses to run as root: as root it switches to the postgres user, who must read these files.
    chmodSync(dir, 0o755);
    const password = server.password ? ` password=${decodeURIComponent(server.password)}` : '';
    const port = await freePort();
    writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
    const ini = [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${user}${password}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
    ].join('\n');
    writeFileSync(path.join(dir, 'pgbouncer.ini'), `${ini}\n`, { mode: 0o644 });
    const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
    // Debian installs it in /usr/sbin, which a non-root PATH may lack.
    const binary = existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer';
    const child = spawn(binary, [...asRoot, path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
    const bouncer = new PgBouncer(child, dir, port, user);
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}`);
        const probe = new Client({ connectionString: bouncer.url('postgres') });
        try {
          await probe.connect();
          await probe.query('SELECT 1');
          return true;
        } catch {
          return false;
        } finally {
          await probe.end().catch(() => undefined);
        }
      },
      { timeoutMs: 15_000, intervalMs: 100, what: 'pgbouncer' },
    );
    return bouncer;
  }

  /** A URL of `database` through this PgBouncer (without `?pgbouncer=true`: the caller says what it means). */
  url(database: string): string {
    return `postgresql://${encodeURIComponent(this.user)}@127.0.0.1:${this.port}/${database}`;
  }

  /** Stops it and removes its files. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const gone = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await gone;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
