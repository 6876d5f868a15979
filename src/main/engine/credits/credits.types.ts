/** One row of a workspace's credit ledger: a spend, a top-up or a set balance. */
export interface LedgerEntry {
  id: number;
  kind: 'spend' | 'top-up' | 'set';
  call: string;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  embeddingTokens: number;
  credits: number;
  balanceAfter: number;
  createdAt: string;
}
