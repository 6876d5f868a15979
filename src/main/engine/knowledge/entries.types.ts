export type EntryStatus = 'active' | 'draft' | 'archived';
export const ENTRY_STATUSES: readonly EntryStatus[] = ['active', 'draft', 'archived'];

/** Contract section 2.3. */
export interface Entry {
  id: string;
  subject: string;
  question: string;
  altQuestions: string[];
  answer: string;
  keywords: string[];
  sourceExcerpt: string | null;
  page: number | null;
  status: EntryStatus;
  conflictOfId: string | null;
  validUntil: string | null;
  hitCount: number;
  lastHitAt: string | null;
  sourceId: string | null;
  sourceTitle: string | null;
  messageId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Listing filters of GET /bases/{kbId}/entries. */
export type StatusFilter = EntryStatus | 'all' | 'conflicts' | 'expiring';
export type EntrySort = 'newest' | 'hits' | 'unused' | 'subject';

export interface EntryFilter {
  q?: string;
  subject?: string;
  source?: string;
  status?: StatusFilter;
  sort?: EntrySort;
  limit?: number;
  offset?: number;
}

/** Contract sections 2.3 and 8 (entry fields, bulk, import, near-duplicates). */
export const ENTRY_LIMITS = {
  subject: 60,
  question: 500,
  answer: 2000,
  altQuestions: 5,
  altQuestion: 300,
  keywords: 10,
  /** Not bounded by the contract; Hearth's own bound on one keyword. */
  keyword: 100,
  bulkIds: 500,
  importRows: 2000,
  listLimit: 500,
  defaultListLimit: 50,
  nearDuplicate: 0.92,
  expiringDays: 30,
  searchTopK: 50,
  defaultSearchTopK: 6,
  searchQuery: 2000,
} as const;

export const DEFAULT_SUBJECT = 'General';

/** How exact duplicates are found: case-insensitive, ignoring surrounding and repeated whitespace. */
export function questionKey(question: string): string {
  return question.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The texts embedded for an entry; the subject is part of each (contract 2.3). */
export function embeddingTexts(entry: { subject: string; question: string; altQuestions: readonly string[] }): string[] {
  return [entry.question, ...entry.altQuestions].map((q) => `${entry.subject}: ${q}`);
}
