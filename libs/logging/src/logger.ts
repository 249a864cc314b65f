import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Options of the root logger of one service process. */
export interface LoggerConfig {
  /** The service name, put on every line as `service`. */
  service: string;
  /** The running version, put on every line as `version`. @defaultValue '0.1.0' */
  version?: string;
  /** pino level. @defaultValue 'info' */
  level?: string;
  /** Where lines go; a test passes its own stream. @defaultValue stdout */
  destination?: pino.DestinationStream;
}

/**
 * Anything that may hold a credential is redacted wherever it appears in a
 * log object, so a handler that logs a request or a config never leaks one.
 */
export const REDACT_PATHS = [
  'authorization',
  'apiKey',
  'token',
  'password',
  'secret',
  '*.authorization',
  '*.apiKey',
  '*.token',
  '*.password',
  '*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
];

/** The root JSON logger of a service: `base: {service, version}`, redaction on. */
export function createLogger(config: LoggerConfig): Logger {
  const options: LoggerOptions = {
    level: config.level ?? 'info',
    base: { service: config.service, version: config.version ?? '0.1.0' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return config.destination ? pino(options, config.destination) : pino(options);
}
