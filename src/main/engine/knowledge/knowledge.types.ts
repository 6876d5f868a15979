export interface KnowledgeBase {
  id: string;
  orgId: string;
  name: string;
  description: string;
  embeddingModel: string;
  reviewBeforeIndex: boolean;
  defaultLanguage: string | null;
  sourceCount: number;
  entryCount: number;
  indexing: boolean;
  lastIndexedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Contract section 8. */
export const LIMITS = {
  basesPerWorkspace: 50,
  entriesPerBase: 20_000,
  baseName: 120,
  baseDescription: 2000,
} as const;
