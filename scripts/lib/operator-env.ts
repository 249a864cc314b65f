import path from 'node:path';
import { platformFilePath, readRecord, resolveOperatorEnv } from './platform-file.cjs';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Points an operator command at the platform it administers: DATABASE_URL and REDIS_URL from
 * the environment, else from the record a running `npm start` wrote (.data/platform.json).
 * Throws, before anything connects, when neither names them: a default URL could be another
 * database than the platform's. Call it before loading the config.
 */
export function useRunningPlatform(env: NodeJS.ProcessEnv = process.env): void {
  const resolved = resolveOperatorEnv(env, platformFilePath(ROOT, env));
  if (!resolved.ok) throw new Error(resolved.reason);
  Object.assign(env, resolved.env);
  // On stderr: stdout carries what the command prints (a token is its last line).
  if (resolved.from) console.error(`using ${Object.keys(resolved.env).join(', ')} of ${resolved.from}`);
}

/**
 * The base URL of the links an operator command prints (decision 0042): PUBLIC_URL, else the
 * gateway the running `npm start` recorded, else the gateway's default address.
 */
export function linkBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PUBLIC_URL) return env.PUBLIC_URL;
  const record = readRecord(platformFilePath(ROOT, env));
  return record?.gatewayUrl ?? `http://127.0.0.1:${env.PORT || 8080}`;
}
