/**
 * Short leases and claim times, so that what a killed process held is taken
 * over in seconds rather than the production 30 s; the lease stays well above
 * a Redis restart, which must not cost a run its slot.
 */
const RECOVERY_ENV = {
  CLAIM_IDLE_MS: '3000',
  INGEST_TRIM_INTERVAL_MS: '1000',
  RUNNER_LEASE_MS: '4000',
  RUNNER_LOCK_DURATION_MS: '5000',
  RUNNER_STALLED_INTERVAL_MS: '2000',
  RUNNER_SWEEP_INTERVAL_MS: '2000',
};

/** Where the mesh's services find their stores and the gateway listens. */
export interface MeshEnvOptions {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  gatewayPort: number;
}

/**
 * The environment of every process of the chaos mesh. Every health port is 0
 * (a free one): a default port would collide with another installation or test
 * on the machine, and a service that cannot bind it does not start.
 */
export function meshEnv(options: MeshEnvOptions): Record<string, string> {
  return {
    ...RECOVERY_ENV,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    REDIS_PREFIX: options.redisPrefix,
    HOST: '127.0.0.1',
    PORT: String(options.gatewayPort),
    GATEWAY_HEALTH_PORT: '0',
    EVENT_LOG_HEALTH_PORT: '0',
    MATCHER_HEALTH_PORT: '0',
    RUNNER_HEALTH_PORT: '0',
    RATE_LIMIT_PER_SECOND: '1000000',
    LOG_LEVEL: 'info',
  };
}
