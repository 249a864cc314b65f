import { NotificationSettingsSchema, type NotificationSettings, type Role } from '@switchyard/contracts';
import { Prisma, type PrismaClient } from '@switchyard/db';
import type { NotificationStore } from '../notification-ports';

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };

/** Notification settings, link codes and links on PostgreSQL; every query scoped by workspace id. */
export class PrismaNotificationStore implements NotificationStore {
  constructor(private readonly prisma: PrismaClient) {}

  async getSettings(workspaceId: string): Promise<NotificationSettings | null> {
    const row = await this.prisma.notificationSettings.findUnique({ where: { workspaceId } });
    if (!row) return null;
    return NotificationSettingsSchema.parse({ connection: row.connection, defaultChannel: row.defaultChannel, rules: row.rules });
  }

  async putSettings(workspaceId: string, settings: NotificationSettings): Promise<NotificationSettings> {
    const data = { connection: settings.connection ?? Prisma.DbNull, defaultChannel: settings.defaultChannel, rules: settings.rules, updatedAt: new Date() };
    const row = await this.prisma.notificationSettings.upsert({ where: { workspaceId }, create: { workspaceId, ...data }, update: data });
    return NotificationSettingsSchema.parse({ connection: row.connection, defaultChannel: row.defaultChannel, rules: row.rules });
  }

  async issueLinkCode(workspaceId: string, userId: string, maxRole: Role, codeHash: string, expiresAt: Date): Promise<void> {
    await this.prisma.mattermostLinkCode.create({ data: { codeHash, workspaceId, userId, maxRole, expiresAt } });
  }

  async consumeLinkCode(workspaceId: string, codeHash: string, mattermostUserId: string): Promise<{ userId: string } | null> {
    return this.prisma.$transaction(async (tx) => {
      // Conditional: of two concurrent uses of one code, exactly one links.
      const [used] = await tx.$queryRaw<Array<{ user_id: string; max_role: Role }>>`
        UPDATE mattermost_link_codes SET used_at = now()
         WHERE code_hash = ${codeHash} AND workspace_id = ${workspaceId}::uuid AND used_at IS NULL AND expires_at > now()
        RETURNING user_id::text AS user_id, max_role::text AS max_role`;
      if (!used) return null;
      await tx.$executeRaw`
        INSERT INTO mattermost_links (workspace_id, mattermost_user_id, user_id, max_role)
        VALUES (${workspaceId}::uuid, ${mattermostUserId}, ${used.user_id}::uuid, ${used.max_role}::"Role")
        ON CONFLICT (workspace_id, mattermost_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, max_role = EXCLUDED.max_role, created_at = now()`;
      return { userId: used.user_id };
    });
  }

  async linkedMember(workspaceId: string, mattermostUserId: string): Promise<{ userId: string; role: Role } | null> {
    const [row] = await this.prisma.$queryRaw<Array<{ user_id: string; role: Role; max_role: Role }>>`
      SELECT l.user_id::text AS user_id, m.role::text AS role, l.max_role::text AS max_role
        FROM mattermost_links l JOIN memberships m ON m.workspace_id = l.workspace_id AND m.user_id = l.user_id
       WHERE l.workspace_id = ${workspaceId}::uuid AND l.mattermost_user_id = ${mattermostUserId}`;
    // The lower of the membership's role now and the role of the token that made the link.
    return row ? { userId: row.user_id, role: RANK[row.max_role] < RANK[row.role] ? row.max_role : row.role } : null;
  }

  async workspaceBySlug(slug: string): Promise<{ id: string; slug: string } | null> {
    return this.prisma.workspace.findUnique({ where: { slug }, select: { id: true, slug: true } });
  }
}
