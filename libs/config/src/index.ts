export { BaseEnvSchema, envBoolean, envList, loadConfig } from './load-config';
export type { BaseConfig } from './load-config';
export { SecretsEnvSchema, secretBoxOf } from './secrets-env';
export type { SecretsEnv } from './secrets-env';
