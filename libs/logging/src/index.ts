export { createLogger, REDACT_PATHS } from './logger';
export type { Logger, LoggerConfig } from './logger';
