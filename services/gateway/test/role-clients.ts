import { apiClient, type TestPlatform } from '@switchyard/testing';

type Api = ReturnType<typeof apiClient>;

/** A workspace's clients by role, and another workspace's admin. */
export interface RoleClients {
  adminToken: string;
  admin: Api;
  member: Api;
  viewer: Api;
  otherAdmin: Api;
}

/**
 * Why this exists: the tests of admin-only routes need the same cast — the
 * workspace's admin, a member and a viewer (tokens the admin creates through
 * the API) and another workspace's admin — each client passed through `wrap`
 * (e.g. one that keeps every response to search it for a leaked secret).
 */
export async function roleClients(platform: TestPlatform, slug: string, otherSlug: string, wrap: (api: Api) => Api = (api) => api): Promise<RoleClients> {
  const adminToken = await platform.createWorkspace(slug);
  const admin = wrap(apiClient(platform.gatewayUrl, adminToken));
  const otherAdmin = wrap(apiClient(platform.gatewayUrl, await platform.createWorkspace(otherSlug)));
  const tokenOf = async (name: string, role: string) => (await admin('POST', `/v1/workspaces/${slug}/tokens`, { name, role })).body.token as string;
  const member = wrap(apiClient(platform.gatewayUrl, await tokenOf('ci', 'member')));
  const viewer = wrap(apiClient(platform.gatewayUrl, await tokenOf('dash', 'viewer')));
  return { adminToken, admin, member, viewer, otherAdmin };
}
