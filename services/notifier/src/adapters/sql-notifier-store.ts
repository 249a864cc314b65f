import { NotificationSettingsSchema, type ApprovalFactPayload, type NotificationSettings } from '@switchyard/contracts';
import { APPROVAL_COLUMNS, approvalFromRow, readWorkspaceSecret, type ApprovalRow, type SecretOpener, type SqlRunner } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';
import type { DeliveryRecord, NotifierStore } from '../ports';

interface DeliveryRow {
  fact_id: string;
  rule_id: string;
  channel: string | null;
  post_id: string | null;
}

const toRecord = (row: DeliveryRow): DeliveryRecord => ({ factId: row.fact_id, ruleId: row.rule_id, channel: row.channel, postId: row.post_id });

/**
 * The notifier's PostgreSQL: it writes `notification_deliveries` and reads
 * the settings (the gateway's), approvals (the approvals service's), user
 * names and secrets. Every query is scoped by workspace id.
 */
export class SqlNotifierStore implements NotifierStore {
  constructor(
    private readonly sql: SqlRunner,
    /** Opens workspace secrets; null without SECRETS_KEY (then no connection's secret can be read). */
    private readonly box: SecretOpener | null,
    private readonly log: Logger,
  ) {}

  async settingsOf(workspaceIds: readonly string[]): Promise<Map<string, { slug: string; settings: NotificationSettings }>> {
    const rows = await this.sql.$queryRawUnsafe<Array<{ workspace_id: string; slug: string; connection: unknown; default_channel: string | null; rules: unknown }>>(
      `SELECT s.workspace_id::text AS workspace_id, w.slug, s.connection, s.default_channel, s.rules
         FROM notification_settings s JOIN workspaces w ON w.id = s.workspace_id
        WHERE s.workspace_id = ANY($1::uuid[])`,
      [...workspaceIds],
    );
    const found = new Map<string, { slug: string; settings: NotificationSettings }>();
    for (const row of rows) {
      const parsed = NotificationSettingsSchema.safeParse({ connection: row.connection, defaultChannel: row.default_channel, rules: row.rules });
      if (parsed.success) found.set(row.workspace_id, { slug: row.slug, settings: parsed.data });
      else this.log.error({ workspaceId: row.workspace_id, issues: parsed.error.issues }, 'stored notification settings do not parse: nothing is sent');
    }
    return found;
  }

  async deliveriesOf(workspaceId: string, subject: string): Promise<DeliveryRecord[]> {
    const rows = await this.sql.$queryRawUnsafe<DeliveryRow[]>(
      'SELECT fact_id::text AS fact_id, rule_id, channel, post_id FROM notification_deliveries WHERE workspace_id = $1::uuid AND subject = $2 ORDER BY created_at',
      workspaceId,
      subject,
    );
    return rows.map(toRecord);
  }

  async delivery(factId: string, ruleId: string): Promise<DeliveryRecord | null> {
    const [row] = await this.sql.$queryRawUnsafe<DeliveryRow[]>(
      'SELECT fact_id::text AS fact_id, rule_id, channel, post_id FROM notification_deliveries WHERE fact_id = $1::uuid AND rule_id = $2',
      factId,
      ruleId,
    );
    return row ? toRecord(row) : null;
  }

  async recordDelivery(record: DeliveryRecord & { workspaceId: string; subject: string }): Promise<void> {
    await this.sql.$executeRawUnsafe(
      `INSERT INTO notification_deliveries (fact_id, rule_id, workspace_id, subject, channel, post_id)
       VALUES ($1::uuid, $2, $3::uuid, $4, $5, $6) ON CONFLICT (fact_id, rule_id) DO NOTHING`,
      record.factId,
      record.ruleId,
      record.workspaceId,
      record.subject,
      record.channel,
      record.postId,
    );
  }

  async approval(workspaceId: string, approvalId: string): Promise<ApprovalFactPayload | null> {
    const [row] = await this.sql.$queryRawUnsafe<Array<ApprovalRow & { slug: string }>>(
      `SELECT ${APPROVAL_COLUMNS}, (SELECT slug FROM workspaces WHERE id = $1::uuid) AS slug FROM approvals WHERE workspace_id = $1::uuid AND id = $2::uuid`,
      workspaceId,
      approvalId,
    );
    if (!row) return null;
    const { workspace: _workspace, ...payload } = approvalFromRow(row, row.slug);
    return payload;
  }

  async userName(userId: string): Promise<string | null> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ name: string }>>('SELECT name FROM users WHERE id = $1::uuid', userId);
    return row?.name ?? null;
  }

  async agentName(workspaceId: string, agentId: string): Promise<string | null> {
    const [row] = await this.sql.$queryRawUnsafe<Array<{ name: string }>>('SELECT name FROM agents WHERE id = $1::uuid AND workspace_id = $2::uuid', agentId, workspaceId);
    return row?.name ?? null;
  }

  async secret(workspaceId: string, name: string): Promise<string | null> {
    if (!this.box) return null;
    return readWorkspaceSecret(this.sql, this.box, workspaceId, name);
  }
}
