import { NotificationSettingsSchema, type NotificationSettings, type Role } from '@switchyard/contracts';
import { Prisma, type PrismaClient } from '@switchyard/db';
import type { NotificationStore } from '../notification-ports';

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

  async issueLinkCode(workspaceId: string, userId: string, codeHash: string, expiresAt: Date): Promise<void> {
    await this.prisma.mattermostLinkCode.create({ data: { codeHash, workspaceId, userId, expiresAt } });
  }

  async consumeLinkCode(workspaceId: string, codeHash: string, mattermostUserId: string): Promise<{ userId: string } | null> {
    return this.prisma.$transaction(async (tx) => {
      // Conditional: of two concurrent uses of one code, exactly one links.
      const [used] = await tx.$queryRaw<Array<{ user_id: string }>>`
        UPDATE mattermost_link_codes SET used_at = now()
         WHERE code_hash = ${codeHash} AND workspace_id = ${workspaceId}::uuid AND used_at IS NULL AND expires_at > now()
        RETURNING user_id::text AS user_id`;
      if (!used) return null;
      await tx.$executeRaw`
        INSERT INTO mattermost_links (workspace_id, mattermost_user_id, user_id) VALUES (${workspaceId}::uuid, ${mattermostUserId}, ${used.user_id}::uuid)
        ON CONFLICT (workspace_id, mattermost_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = now()`;
      return { userId: used.user_id };
    });
  }

  async linkedMember(workspaceId: string, mattermostUserId: string): Promise<{ userId: string; role: Role } | null> {
    const [row] = await this.prisma.$queryRaw<Array<{ user_id: string; role: Role }>>`
      SELECT l.user_id::text AS user_id, m.role::text AS role
        FROM mattermost_links l JOIN memberships m ON m.workspace_id = l.workspace_id AND m.user_id = l.user_id
       WHERE l.workspace_id = ${workspaceId}::uuid AND l.mattermost_user_id = ${mattermostUserId}`;
    return row ? { userId: row.user_id, role: row.role } : null;
  }

  async workspaceBySlug(slug: string): Promise<{ id: string; slug: string } | null> {
    return this.prisma.workspace.findUnique({ where: { slug }, select: { id: true, slug: true } });
  }
}
