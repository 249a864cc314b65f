export { BaseEnvSchema, envBoolean, loadConfig } from './load-config';
export type { BaseConfig } from './load-config';
