import type { Clock } from '../shared/clock.ts';
import { fieldError, insufficientCredits, notFound } from '../shared/errors.ts';
import type { Db } from '../storage/database.ts';
import { CreditsRepository, type LedgerEntry } from './credits.repository.ts';

export interface Spend {
  call: string;
  model?: string | null;
  inputTokens?: number;
  outputTokens?: number;
  embeddingTokens?: number;
  credits: number;
}

/**
 * The workspace balance and its ledger. Spending calls check `assertCanSpend`
 * before doing any work (a 0 balance answers 402 and nothing is queued), then
 * record what the work actually cost.
 */
export class CreditsService {
  private readonly repo: CreditsRepository;

  private readonly db: Db;
  private readonly clock: Clock;

  constructor(db: Db, clock: Clock) {
    this.db = db;
    this.clock = clock;
    this.repo = new CreditsRepository(db);
  }

  balance(workspaceId: string): number {
    const balance = this.repo.balance(workspaceId);
    if (balance === undefined) throw notFound(`Workspace ${workspaceId}`);
    return balance;
  }

  assertCanSpend(workspaceId: string): void {
    const balance = this.balance(workspaceId);
    if (balance <= 0) throw insufficientCredits(balance);
  }

  /**
   * Records a spend. The balance may end below zero by the cost of the call that
   * crossed it (the call was allowed to start); it never blocks mid-way.
   */
  spend(workspaceId: string, spend: Spend): LedgerEntry {
    return this.db.transaction(() => {
      const balance = this.balance(workspaceId);
      const credits = roundCredits(spend.credits);
      return this.repo.record(
        workspaceId,
        {
          kind: 'spend',
          call: spend.call,
          model: spend.model ?? null,
          inputTokens: spend.inputTokens ?? 0,
          outputTokens: spend.outputTokens ?? 0,
          embeddingTokens: spend.embeddingTokens ?? 0,
          credits,
          createdAt: this.clock.now().toISOString(),
        },
        roundCredits(balance - credits),
      );
    })();
  }

  setBalance(workspaceId: string, balance: number): LedgerEntry {
    if (!Number.isFinite(balance) || balance < 0) throw fieldError('balance', 'Expected a number of credits, 0 or more.');
    return this.db.transaction(() => {
      const before = this.balance(workspaceId);
      return this.repo.record(
        workspaceId,
        { kind: 'set', call: 'balance', model: null, inputTokens: 0, outputTokens: 0, embeddingTokens: 0, credits: roundCredits(balance - before), createdAt: this.clock.now().toISOString() },
        roundCredits(balance),
      );
    })();
  }

  ledger(workspaceId: string, limit = 100): LedgerEntry[] {
    this.balance(workspaceId);
    return this.repo.ledger(workspaceId, limit);
  }
}

/** Credits are kept to 6 decimals so sums stay exact enough to compare in tests and UIs. */
export function roundCredits(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
