/** Each service's health port variable and its default. */
export const HEALTH_PORTS: ReadonlyArray<[name: string, variable: string, defaultPort: number]>;

/** The services whose health server answers on 127.0.0.1, with its port. */
export function answeringHealthPorts(env: Record<string, string | undefined>): Promise<Array<{ name: string; port: number }>>;

/** The banner `npm start` prints. */
export function formatBanner(platform: {
  gatewayUrl: string;
  healthPorts: Array<{ name: string; port: number }>;
  redis: string;
  postgres: string;
  secretsKey: string;
  platformFile: string;
}): string;
