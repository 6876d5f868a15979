import type { LedgerEntry } from '../../../main/engine/credits/credits.types.ts';
import type { ModelSettingsView } from '../../../main/engine/llm/llm.types.ts';
import { apiRequest } from './http.ts';

export type { LedgerEntry, ModelSettingsView };

/**
 * The app's own settings API (family /api/app, not part of the scripts'
 * contract): credits, the answering model and the embedding models. The UI
 * treats a 404 as "not in this build".
 */
export interface CreditsView {
  workspaceId: string;
  balance: number;
  ledger?: LedgerEntry[];
}

export interface ModelSettingsInput {
  baseUrl: string;
  model: string;
  /** Omitted keeps the stored key; null removes it. */
  apiKey?: string | null;
  timeoutMs?: number;
  stream?: boolean;
}

export interface ModelTestResult {
  ok: boolean;
  latencyMs: number;
  reply?: string;
  error?: string;
}

export interface EmbeddingModelInfo {
  id: string;
  dimensions: number;
  origin: 'bundled' | 'user';
  languages: string;
  sizeBytes: number;
  isDefault: boolean;
}

export interface WorkspaceView {
  id: string;
  name: string;
  creditBalance: number;
  user: { id: string; name: string };
}

export const settingsApi = {
  workspace: () => apiRequest<WorkspaceView>('GET', '/api/app/workspace'),
  credits: () => apiRequest<CreditsView>('GET', '/api/app/credits?limit=20'),
  setBalance: (balance: number) => apiRequest<CreditsView>('PUT', '/api/app/credits/balance', { balance }),
  modelSettings: () => apiRequest<ModelSettingsView>('GET', '/api/app/settings/model'),
  saveModelSettings: (input: ModelSettingsInput) => apiRequest<ModelSettingsView>('PUT', '/api/app/settings/model', input),
  clearModelSettings: () => apiRequest<ModelSettingsView>('DELETE', '/api/app/settings/model'),
  testModel: (input?: ModelSettingsInput) => apiRequest<ModelTestResult>('POST', '/api/app/settings/model/test', input ?? {}),
  embeddingModels: () => apiRequest<{ defaultModelId: string; models: EmbeddingModelInfo[] }>('GET', '/api/app/models'),
  importEmbeddingModel: (path: string) => apiRequest<{ model: EmbeddingModelInfo }>('POST', '/api/app/models/import', { path }),
};
