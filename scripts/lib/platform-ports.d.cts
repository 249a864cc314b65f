/** A fixed port the platform binds, and the variable that sets it. */
export interface PlatformPort {
  what: string;
  variable: string;
  port: number;
}

/** Each service's health port variable and its default. */
export const HEALTH_PORTS: ReadonlyArray<[name: string, variable: string, defaultPort: number]>;

/** The gateway's port: PORT, else 8080. */
export function gatewayPort(env: Record<string, string | undefined>): number;

/** Every fixed port the platform binds (the gateway's, then the health ports). */
export function platformPorts(env: Record<string, string | undefined>): PlatformPort[];

/** Resolves true when something accepts a TCP connection on host:port. */
export function accepts(host: string, port: number): Promise<boolean>;

/** The platform's ports something already listens on at 127.0.0.1. */
export function takenPorts(env: Record<string, string | undefined>): Promise<PlatformPort[]>;

/** Why a start cannot go on when ports are taken. */
export function portsTakenMessage(taken: PlatformPort[]): string;
