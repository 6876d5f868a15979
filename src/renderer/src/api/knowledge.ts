import type { SearchHit, SearchResult, AskReply } from '../../../main/engine/knowledge/knowledge.api.ts';
import type { Entry as EngineEntry, EntrySort, EntryStatus } from '../../../main/engine/knowledge/entries.types.ts';
import type { KnowledgeBase } from '../../../main/engine/knowledge/knowledge.types.ts';
import { apiRequest, downloadFile, queryString } from './http.ts';

export type { KnowledgeBase, SearchHit, SearchResult, AskReply };

const K = '/api/ai/knowledge';

export type EntryFilter = EntryStatus | 'all' | 'conflicts' | 'expiring' | '';
export type { EntrySort, EntryStatus };
export type BulkAction = 'approve' | 'activate' | 'archive' | 'delete' | 'setSubject';

/** Contract 2.3; `conflicts` comes only with the add-entry reply. */
export type Entry = EngineEntry & { conflicts?: 0 | 1 };

export interface EntryInput {
  subject: string;
  question: string;
  answer: string;
  altQuestions: string[];
  keywords: string[];
  validUntil: string | null;
}

export interface BaseInput {
  name: string;
  description: string;
  reviewBeforeIndex: boolean;
  defaultLanguage: string | null;
}

export interface EntryQuery {
  q?: string;
  subject?: string;
  status?: EntryFilter;
  sort?: EntrySort;
  limit: number;
  offset: number;
}

export interface ImportRow {
  subject?: string;
  question: string;
  answer: string;
  altQuestions?: string[];
  keywords?: string[];
}

export interface SubjectCount {
  subject: string;
  count: number;
}

export interface UnansweredItem {
  query: string;
  count: number;
  lastAt: string;
}

const base = (kbId: string): string => `${K}/bases/${encodeURIComponent(kbId)}`;

export const knowledgeApi = {
  listBases: () => apiRequest<KnowledgeBase[]>('GET', `${K}/bases`),
  getBase: (kbId: string) => apiRequest<KnowledgeBase>('GET', base(kbId)),
  createBase: (input: BaseInput) => apiRequest<KnowledgeBase>('POST', `${K}/bases`, input),
  updateBase: (kbId: string, input: Partial<BaseInput>) => apiRequest<KnowledgeBase>('PATCH', base(kbId), input),

  listEntries: (kbId: string, query: EntryQuery) => apiRequest<{ items: Entry[]; total: number }>('GET', `${base(kbId)}/entries${queryString({ ...query })}`),
  listSubjects: (kbId: string) => apiRequest<SubjectCount[]>('GET', `${base(kbId)}/subjects`),
  addEntry: (kbId: string, input: EntryInput) => apiRequest<Entry>('POST', `${base(kbId)}/entries`, input),
  updateEntry: (kbId: string, id: string, patch: Partial<EntryInput> & { status?: EntryStatus; resolveConflict?: 'keep' | 'replace' }) =>
    apiRequest<Entry>('PATCH', `${base(kbId)}/entries/${id}`, patch),
  deleteEntry: (kbId: string, id: string) => apiRequest<{ ok: true }>('DELETE', `${base(kbId)}/entries/${id}`),
  bulk: (kbId: string, ids: string[], action: BulkAction, subject?: string) =>
    apiRequest<{ affected: number }>('POST', `${base(kbId)}/entries/bulk`, { ids, action, ...(subject ? { subject } : {}) }),

  importRows: (kbId: string, rows: ImportRow[]) => apiRequest<{ inserted: number; duplicates: number; conflicts: number }>('POST', `${base(kbId)}/import`, { rows }),
  exportBase: (kbId: string, format: 'csv' | 'json', fileName: string) => downloadFile(`${base(kbId)}/export?format=${format}`, fileName),

  search: (kbId: string, query: string, topK = 8) => apiRequest<SearchResult>('POST', `${base(kbId)}/search`, { query, topK }),
  ask: (kbId: string, query: string) => apiRequest<AskReply>('POST', `${base(kbId)}/ask`, { query }),

  listUnanswered: (kbId: string) => apiRequest<UnansweredItem[]>('GET', `${base(kbId)}/unanswered`),
  clearUnanswered: (kbId: string, query?: string) => apiRequest<{ ok: true }>('DELETE', `${base(kbId)}/unanswered${queryString({ query })}`),
};
