/** A start's record as read from the platform file. */
export interface PlatformRecord {
  pid: number;
  gatewayUrl: string;
  state: 'starting' | 'running';
  env?: Record<string, string>;
  startedAt?: string;
}

/** Whether `pid` is a running `npm start` (alive, and on Linux a start.mjs). */
export function isStartProcess(pid: number): boolean;

/** Claims the platform file for this start unless a live start holds it (see platform-claim.cjs). */
export function claimPlatformFile(
  file: string,
  claim: { pid: number; gatewayUrl: string },
  options?: { alive?: (pid: number) => boolean; attempts?: number },
): Promise<{ ok: true } | { ok: false; running: PlatformRecord } | { ok: false; reason: string }>;

/** The message for a start that found another holding the platform file. */
export function alreadyRunningMessage(file: string, running: PlatformRecord): string;
