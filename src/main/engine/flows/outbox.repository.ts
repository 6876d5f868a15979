import type { Db } from '../storage/database.ts';

export interface OutboxMessage {
  id: string;
  flowId: string | null;
  executionId: string | null;
  nodeId: string | null;
  channel: string;
  recipient: string;
  text: string;
  webhookUrl: string | null;
  /** outbox: kept locally (no webhook); pending: webhook attempts under way; delivered: it answered 2xx; failed: every attempt failed. */
  delivery: 'outbox' | 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastError: string | null;
  createdAt: string;
}

interface OutboxRow {
  id: string;
  flow_id: string | null;
  execution_id: string | null;
  node_id: string | null;
  channel: string;
  recipient: string;
  text: string;
  webhook_url: string | null;
  delivery: OutboxMessage['delivery'];
  attempts: number;
  last_error: string | null;
  created_at: string;
}

const toMessage = (r: OutboxRow): OutboxMessage => ({
  id: r.id,
  flowId: r.flow_id,
  executionId: r.execution_id,
  nodeId: r.node_id,
  channel: r.channel,
  recipient: r.recipient,
  text: r.text,
  webhookUrl: r.webhook_url,
  delivery: r.delivery,
  attempts: r.attempts,
  lastError: r.last_error,
  createdAt: r.created_at,
});

const WEBHOOK_SETTING = 'messaging.webhookUrl';

/** The local outbox of sent messages and the workspace's messaging webhook setting. */
export class OutboxRepository {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  insert(owner: { workspaceId: string; userId: string }, message: OutboxMessage): void {
    this.db
      .prepare(
        `INSERT INTO messaging_outbox (id, workspace_id, user_id, flow_id, execution_id, node_id, channel, recipient, text, webhook_url, delivery, attempts, last_error, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(message.id, owner.workspaceId, owner.userId, message.flowId, message.executionId, message.nodeId, message.channel, message.recipient, message.text, message.webhookUrl, message.delivery, message.attempts, message.lastError, message.createdAt);
  }

  updateDelivery(id: string, delivery: OutboxMessage['delivery'], attempts: number, lastError: string | null): void {
    this.db.prepare('UPDATE messaging_outbox SET delivery = ?, attempts = ?, last_error = ? WHERE id = ?').run(delivery, attempts, lastError, id);
  }

  list(owner: { workspaceId: string; userId: string }, filter: { flowId?: string; limit: number }): { total: number; items: OutboxMessage[] } {
    const where = ['workspace_id = @workspaceId', 'user_id = @userId'];
    if (filter.flowId) where.push('flow_id = @flowId');
    const params = { workspaceId: owner.workspaceId, userId: owner.userId, flowId: filter.flowId ?? null, limit: filter.limit };
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM messaging_outbox WHERE ${where.join(' AND ')}`).get(params) as { n: number }).n;
    const rows = this.db.prepare(`SELECT * FROM messaging_outbox WHERE ${where.join(' AND ')} ORDER BY created_at DESC, rowid DESC LIMIT @limit`).all(params) as OutboxRow[];
    return { total, items: rows.map(toMessage) };
  }

  webhookUrl(workspaceId: string): string | null {
    const row = this.db.prepare('SELECT value FROM settings WHERE workspace_id = ? AND key = ?').get(workspaceId, WEBHOOK_SETTING) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as string | null) : null;
  }

  setWebhookUrl(workspaceId: string, url: string | null): void {
    if (url === null) this.db.prepare('DELETE FROM settings WHERE workspace_id = ? AND key = ?').run(workspaceId, WEBHOOK_SETTING);
    else this.db.prepare('INSERT INTO settings (workspace_id, key, value) VALUES (?, ?, ?) ON CONFLICT (workspace_id, key) DO UPDATE SET value = excluded.value').run(workspaceId, WEBHOOK_SETTING, JSON.stringify(url));
  }
}
