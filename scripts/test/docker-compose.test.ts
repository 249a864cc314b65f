import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/*
 * No Docker engine runs where this project is built and tested, so docker-compose.yml
 * cannot be started here. This test reads it as Compose would (YAML merge keys
 * included) and checks the properties users rely on: every service has a container,
 * Redis keeps accepted facts, services start only after the migrations, and
 * PostgreSQL is never open without a password.
 */
const ROOT = path.resolve(__dirname, '../..');

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  expose?: string[];
}

const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = compose.services;
const serviceDirs = readdirSync(path.join(ROOT, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const INFRA = ['redis', 'postgres', 'migrate'];
const appNames = Object.keys(services).filter((name) => !INFRA.includes(name));
const commandOf = (service: ComposeService): string[] =>
  Array.isArray(service.command) ? service.command : (service.command ?? '').split(/\s+/);

describe('docker-compose.yml', () => {
  it('has one container per service directory, running that service', () => {
    expect(serviceDirs.length).toBeGreaterThan(0);
    expect(appNames.sort()).toEqual([...serviceDirs].sort());
    for (const name of serviceDirs) {
      const command = commandOf(services[name]!);
      expect(command).toEqual(['node', '--import', 'tsx', `services/${name}/src/main.ts`]);
      expect(existsSync(path.join(ROOT, 'services', name, 'src', 'main.ts'))).toBe(true);
    }
  });

  it('runs Redis with an append-only file fsynced every second and no eviction', () => {
    const command = commandOf(services.redis!).join(' ');
    expect(services.redis!.image).toMatch(/^redis:7/);
    expect(command).toMatch(/--appendonly yes\b/);
    expect(command).toMatch(/--appendfsync everysec\b/);
    expect(command).toMatch(/--maxmemory-policy noeviction\b/);
    expect(services.redis!.healthcheck).toBeDefined();
  });

  it('starts every app container only after migrate completed and Redis and PostgreSQL are healthy', () => {
    expect(commandOf(services.migrate!)).toEqual(['npm', 'run', 'db:migrate']);
    expect(services.migrate!.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
    for (const name of appNames) {
      expect({ name, dependsOn: services[name]!.depends_on }).toEqual({
        name,
        dependsOn: {
          redis: { condition: 'service_healthy' },
          postgres: { condition: 'service_healthy' },
          migrate: { condition: 'service_completed_successfully' },
        },
      });
      expect(services[name]!.environment?.REDIS_URL).toBe('redis://redis:6379');
      expect(services[name]!.environment?.DATABASE_URL).toMatch(/^postgresql:\/\/[^:@]+:[^@]+@postgres:5432\/switchyard$/);
    }
  });

  it('never uses trust authentication: PostgreSQL has a password and every URL carries one', () => {
    const postgresEnv = services.postgres!.environment ?? {};
    expect(postgresEnv.POSTGRES_PASSWORD).toBeTruthy();
    expect(postgresEnv.POSTGRES_DB).toBe('switchyard');
    for (const [name, service] of Object.entries(services)) {
      const env = service.environment ?? {};
      expect({ name, auth: env.POSTGRES_HOST_AUTH_METHOD ?? 'unset' }).toEqual({ name, auth: 'unset' });
      if (env.DATABASE_URL) expect(new URL(env.DATABASE_URL).password).not.toBe('');
    }
  });

  it('health-checks every app container on the port it is told to serve health on', () => {
    for (const name of appNames) {
      const service = services[name]!;
      const env = service.environment ?? {};
      const port = name === 'gateway' ? env.PORT : env[`${name.toUpperCase().replace(/-/g, '_')}_HEALTH_PORT`];
      expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^\d+$/) });
      expect(service.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${port}/healthz`);
      // Inside a container, a server bound to loopback cannot be reached from other containers.
      expect(env.HOST).toBe('0.0.0.0');
    }
    expect(services.gateway!.ports).toEqual(['${GATEWAY_PORT:-8080}:8080']);
  });

  it('builds from the root Dockerfile on node:20-bookworm-slim with npm ci and the Prisma client', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20-bookworm-slim$/m);
    expect(dockerfile).toMatch(/npm ci\b/);
    expect(dockerfile).toMatch(/npm run db:generate/);
    for (const name of [...appNames, 'migrate']) expect({ name, build: services[name]!.build }).toEqual({ name, build: '.' });
  });
});
