import type { PlatformRecord } from './platform-claim.cjs';

/** Variables as in process.env. */
type Env = Record<string, string | undefined>;

/** The record's path: SWITCHYARD_PLATFORM_FILE, else <root>/.data/platform.json. */
export function platformFilePath(root: string, env: Env): string;

/** The record's text. */
export function recordText(record: { pid: number; gatewayUrl: string; state: 'starting' | 'running'; env?: Env; startedAt?: string }): string;

/** A file's text, or null when it does not exist. */
export function readText(file: string): string | null;

/** The record in a text, or null when it is not one. */
export function parseRecord(text: string | null): PlatformRecord | null;

/** The record in the file, or null. */
export function readRecord(file: string): PlatformRecord | null;

/** Marks the record of a running `npm start` running, with its servers (owner-only, replaced atomically). */
export function writePlatformFile(file: string, platform: { pid: number; gatewayUrl: string; env: Env }): void;

/** Removes the record if process `pid` wrote it. */
export function removePlatformFile(file: string, pid: number): void;

/** Whether a process with this id runs. */
export function processAlive(pid: number): boolean;

/** DATABASE_URL / REDIS_URL for an operator command: given, else from a running platform's record, else a refusal. */
export function resolveOperatorEnv(
  env: Env,
  file: string,
  alive?: (pid: number) => boolean,
): { ok: true; env: Record<string, string>; from: string | null } | { ok: false; reason: string };
