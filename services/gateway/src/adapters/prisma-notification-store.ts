import { NotificationSettingsSchema, type NotificationSettings, type Role } from '@switchyard/contracts';
import { Prisma, recordFacts, type PrismaClient } from '@switchyard/db';
import { lowerRole } from '../roles';
import type { MattermostLinkChange, NotificationSettingsSave, NotificationStore } from '../notification-ports';
import type { FactsOf } from '../fact-ports';

const settingsOf = (row: { connection: unknown; defaultChannel: string | null; rules: unknown }) =>
  NotificationSettingsSchema.parse({ connection: row.connection, defaultChannel: row.defaultChannel, rules: row.rules });

/** Serializes a transaction with the others taking the same lock (released at its end). */
const lock = (tx: Prisma.TransactionClient, key: string) => tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))::text`;

/** Notification settings, link codes and links on PostgreSQL; every query scoped by workspace id. */
export class PrismaNotificationStore implements NotificationStore {
  constructor(private readonly prisma: PrismaClient) {}

  async getSettings(workspaceId: string): Promise<NotificationSettings | null> {
    const row = await this.prisma.notificationSettings.findUnique({ where: { workspaceId } });
    return row ? settingsOf(row) : null;
  }

  async putSettings(workspaceId: string, settings: NotificationSettings, facts: FactsOf<NotificationSettingsSave>): Promise<NotificationSettings> {
    return (await this.updateSettings(workspaceId, () => settings, facts))!;
  }

  async updateSettings(
    workspaceId: string,
    change: (before: NotificationSettings | null) => NotificationSettings | null,
    facts: FactsOf<NotificationSettingsSave>,
  ): Promise<NotificationSettings | null> {
    return this.prisma.$transaction(async (tx) => {
      // One save at a time, so each knows what it changed (the audit trail); the read after the lock sees every save before.
      await lock(tx, `notification-settings:${workspaceId}`);
      const row = await tx.notificationSettings.findUnique({ where: { workspaceId } });
      const before = row ? settingsOf(row) : null;
      const settings = change(before);
      if (!settings) return null;
      const data = { connection: settings.connection ?? Prisma.DbNull, defaultChannel: settings.defaultChannel, rules: settings.rules, updatedAt: new Date() };
      const after = settingsOf(await tx.notificationSettings.upsert({ where: { workspaceId }, create: { workspaceId, ...data }, update: data }));
      await recordFacts(tx, facts({ before, after }));
      return after;
    });
  }

  async issueLinkCode(workspaceId: string, userId: string, maxRole: Role, codeHash: string, expiresAt: Date): Promise<void> {
    await this.prisma.mattermostLinkCode.create({ data: { codeHash, workspaceId, userId, maxRole, expiresAt } });
  }

  async consumeLinkCode(workspaceId: string, codeHash: string, mattermostUserId: string, facts: FactsOf<MattermostLinkChange>): Promise<{ userId: string } | null> {
    return this.prisma.$transaction(async (tx) => {
      // Conditional: of two concurrent uses of one code, exactly one links.
      const [used] = await tx.$queryRaw<Array<{ user_id: string; max_role: Role; user_name: string | null }>>`
        UPDATE mattermost_link_codes c SET used_at = now()
         WHERE code_hash = ${codeHash} AND workspace_id = ${workspaceId}::uuid AND used_at IS NULL AND expires_at > now()
        RETURNING user_id::text AS user_id, max_role::text AS max_role, (SELECT name FROM users u WHERE u.id = c.user_id) AS user_name`;
      if (!used) return null;
      // One change of a Mattermost user's link at a time, so the fact names the link it replaced.
      await lock(tx, `mattermost-link:${workspaceId}:${mattermostUserId}`);
      const [previous] = await tx.$queryRaw<Array<{ user_id: string }>>`
        SELECT user_id::text AS user_id FROM mattermost_links WHERE workspace_id = ${workspaceId}::uuid AND mattermost_user_id = ${mattermostUserId}`;
      await tx.$executeRaw`
        INSERT INTO mattermost_links (workspace_id, mattermost_user_id, user_id, max_role)
        VALUES (${workspaceId}::uuid, ${mattermostUserId}, ${used.user_id}::uuid, ${used.max_role}::"Role")
        ON CONFLICT (workspace_id, mattermost_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, max_role = EXCLUDED.max_role, created_at = now()`;
      await recordFacts(tx, facts({ userId: used.user_id, userName: used.user_name, role: used.max_role, previousUserId: previous?.user_id ?? null }));
      return { userId: used.user_id };
    });
  }

  async unlink(workspaceId: string, mattermostUserId: string, facts: FactsOf<MattermostLinkChange>): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const [removed] = await tx.$queryRaw<Array<{ user_id: string; max_role: Role; user_name: string | null }>>`
        DELETE FROM mattermost_links l WHERE workspace_id = ${workspaceId}::uuid AND mattermost_user_id = ${mattermostUserId}
        RETURNING user_id::text AS user_id, max_role::text AS max_role, (SELECT name FROM users u WHERE u.id = l.user_id) AS user_name`;
      if (removed) await recordFacts(tx, facts({ userId: removed.user_id, userName: removed.user_name, role: removed.max_role }));
      return removed !== undefined;
    });
  }

  async linkedMember(workspaceId: string, mattermostUserId: string): Promise<{ userId: string; name: string; role: Role } | null> {
    const [row] = await this.prisma.$queryRaw<Array<{ user_id: string; name: string; role: Role; max_role: Role }>>`
      SELECT l.user_id::text AS user_id, u.name, m.role::text AS role, l.max_role::text AS max_role
        FROM mattermost_links l JOIN memberships m ON m.workspace_id = l.workspace_id AND m.user_id = l.user_id
        JOIN users u ON u.id = l.user_id
       WHERE l.workspace_id = ${workspaceId}::uuid AND l.mattermost_user_id = ${mattermostUserId}`;
    // The lower of the membership's role now and the role of the token that made the link.
    return row ? { userId: row.user_id, name: row.name, role: lowerRole(row.max_role, row.role) } : null;
  }

  async workspaceBySlug(slug: string): Promise<{ id: string; slug: string } | null> {
    return this.prisma.workspace.findUnique({ where: { slug }, select: { id: true, slug: true } });
  }
}
