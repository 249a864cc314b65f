/** Each service's health port variable and its default. */
export const HEALTH_PORTS: ReadonlyArray<[name: string, variable: string, defaultPort: number]>;

/** The services whose health server answers on 127.0.0.1, with its port. */
export function answeringHealthPorts(env: Record<string, string | undefined>): Promise<Array<{ name: string; port: number }>>;

/** Whether the gateway serves the web UI and the BullMQ dashboard. */
export function frontDoorState(gatewayUrl: string): Promise<{ ui: boolean; dashboard: boolean }>;

/** The banner `npm start` prints. */
export function formatBanner(platform: {
  pid: number;
  gatewayUrl: string;
  frontDoor: { ui: boolean; dashboard: boolean };
  healthPorts: Array<{ name: string; port: number }>;
  redis: string;
  postgres: string;
  secretsKey: string;
  platformFile: string;
  /** A one-time sign-in link, printed first when given. */
  signInLink?: string;
}): string;
