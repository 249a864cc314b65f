/** Variables as in process.env. */
type Env = Record<string, string | undefined>;

/** The record's path: SWITCHYARD_PLATFORM_FILE, else <root>/.data/platform.json. */
export function platformFilePath(root: string, env: Env): string;

/** Writes the record of a running `npm start` (owner-only). */
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
