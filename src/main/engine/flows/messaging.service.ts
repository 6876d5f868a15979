import type { Principal } from '../identity/identity.types.ts';
import type { Clock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import type { Logger } from '../shared/logger.ts';
import type { Db } from '../storage/database.ts';
import type { OutgoingMessage, SentMessage } from './nodes/node.types.ts';
import { OutboxRepository, type OutboxMessage } from './outbox.repository.ts';

export interface MessagingOptions {
  /** Waits before the 2nd, 3rd, ... webhook attempt. */
  retryDelaysMs?: readonly number[];
  attemptTimeoutMs?: number;
}

const DEFAULT_RETRY_DELAYS_MS = [250, 1000];
const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * Outgoing messages: every message lands in the local outbox; when a webhook URL is set (on the node,
 * or for the workspace) it is also POSTed there as JSON, retried on network errors, 429 and 5xx.
 */
export class MessagingService {
  private readonly repo: OutboxRepository;
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly retryDelaysMs: readonly number[];
  private readonly attemptTimeoutMs: number;

  constructor(db: Db, clock: Clock, logger: Logger, options: MessagingOptions = {}) {
    this.db = db;
    this.repo = new OutboxRepository(db);
    this.clock = clock;
    this.logger = logger;
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  }

  webhookUrl(workspaceId: string): string | null {
    return this.repo.webhookUrl(workspaceId);
  }

  setWebhookUrl(workspaceId: string, url: string | null): void {
    this.repo.setWebhookUrl(workspaceId, url);
  }

  outbox(principal: Principal, filter: { flowId?: string; limit: number }): { total: number; items: OutboxMessage[] } {
    return this.repo.list({ workspaceId: principal.workspaceId, userId: principal.userId }, filter);
  }

  async send(context: { principal: Principal; flowId: string; executionId: string | null; nodeId: string }, message: OutgoingMessage): Promise<SentMessage> {
    const webhookUrl = message.webhookUrl || this.repo.webhookUrl(context.principal.workspaceId) || null;
    const record: OutboxMessage = {
      id: newId(),
      flowId: context.flowId,
      executionId: context.executionId,
      nodeId: context.nodeId,
      channel: message.channel,
      recipient: message.recipient,
      text: message.text,
      webhookUrl,
      delivery: webhookUrl ? 'pending' : 'outbox',
      attempts: 0,
      lastError: null,
      createdAt: this.clock.now().toISOString(),
    };
    this.repo.insert({ workspaceId: context.principal.workspaceId, userId: context.principal.userId }, record);
    if (!webhookUrl) return { id: record.id, delivery: 'outbox', attempts: 0 };
    const outcome = await this.deliver(webhookUrl, record);
    if (this.db.open) this.repo.updateDelivery(record.id, outcome.delivered ? 'delivered' : 'failed', outcome.attempts, outcome.error ?? null);
    return { id: record.id, delivery: outcome.delivered ? 'delivered' : 'failed', attempts: outcome.attempts, ...(outcome.error ? { error: outcome.error } : {}) };
  }

  private async deliver(url: string, message: OutboxMessage): Promise<{ delivered: boolean; attempts: number; error?: string }> {
    const payload = JSON.stringify({
      id: message.id,
      channel: message.channel,
      recipient: message.recipient,
      text: message.text,
      flowId: message.flowId,
      executionId: message.executionId,
      nodeId: message.nodeId,
      createdAt: message.createdAt,
    });
    let error = '';
    const maxAttempts = this.retryDelaysMs.length + 1;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, this.retryDelaysMs[attempt - 2]));
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': message.id },
          body: payload,
          signal: AbortSignal.timeout(this.attemptTimeoutMs),
        });
        await response.arrayBuffer();
        if (response.ok) return { delivered: true, attempts: attempt };
        error = `the webhook answered ${response.status}`;
        // Other 4xx answers will not change on a retry.
        if (response.status < 500 && response.status !== 429) return { delivered: false, attempts: attempt, error };
      } catch (cause) {
        error = cause instanceof Error ? cause.message : String(cause);
      }
      this.logger.warn(`Messaging webhook attempt ${attempt} of ${maxAttempts} failed`, { url, error });
    }
    return { delivered: false, attempts: maxAttempts, error };
  }
}
