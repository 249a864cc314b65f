export { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, databaseServerUrl, redisUrl, TEMPLATE_DATABASE, withDatabase } from './infra';
export { adminQuery, createTestDatabase } from './test-database';
export type { TestDatabase } from './test-database';
export { createTestRedis, deleteKeys } from './test-redis';
export type { TestRedis } from './test-redis';
export { waitFor } from './wait-for';
