import type { Db } from '../storage/database.ts';
import type { LedgerEntry } from './credits.types.ts';

export type { LedgerEntry };

interface LedgerRow {
  id: number;
  kind: LedgerEntry['kind'];
  call: string;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  embedding_tokens: number;
  credits: number;
  balance_after: number;
  created_at: string;
}

export type NewLedgerEntry = Omit<LedgerEntry, 'id' | 'balanceAfter'>;

export class CreditsRepository {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  balance(workspaceId: string): number | undefined {
    const row = this.db.prepare('SELECT credit_balance FROM workspaces WHERE id = ?').get(workspaceId) as { credit_balance: number } | undefined;
    return row?.credit_balance;
  }

  /** Moves the balance by `delta` and records why, in one statement pair the caller wraps in a transaction. */
  record(workspaceId: string, entry: NewLedgerEntry, newBalance: number): LedgerEntry {
    this.db.prepare('UPDATE workspaces SET credit_balance = ? WHERE id = ?').run(newBalance, workspaceId);
    const info = this.db
      .prepare(
        `INSERT INTO credit_ledger (workspace_id, kind, call, model, input_tokens, output_tokens, embedding_tokens, credits, balance_after, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(workspaceId, entry.kind, entry.call, entry.model, entry.inputTokens, entry.outputTokens, entry.embeddingTokens, entry.credits, newBalance, entry.createdAt);
    return { ...entry, id: Number(info.lastInsertRowid), balanceAfter: newBalance };
  }

  ledger(workspaceId: string, limit: number): LedgerEntry[] {
    const rows = this.db.prepare('SELECT * FROM credit_ledger WHERE workspace_id = ? ORDER BY id DESC LIMIT ?').all(workspaceId, limit) as LedgerRow[];
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      call: r.call,
      model: r.model,
      inputTokens: r.input_tokens,
      outputTokens: r.output_tokens,
      embeddingTokens: r.embedding_tokens,
      credits: r.credits,
      balanceAfter: r.balance_after,
      createdAt: r.created_at,
    }));
  }
}
