import type { TokenRecord, Access, Resource } from '../../../main/engine/identity/identity.types.ts';
import { apiRequest } from './http.ts';

export type { Access, Resource };

export interface TokenSummary extends TokenRecord {
  state: 'active' | 'revoked' | 'expired';
}

export interface TokenWithSecret extends TokenSummary {
  token: string;
}

export interface NewToken {
  name: string;
  access: Access;
  resources: Resource[];
  expiresAt: string | null;
}

export const tokensApi = {
  list: () => apiRequest<TokenSummary[]>('GET', '/api/app/tokens'),
  create: (input: NewToken) => apiRequest<TokenWithSecret>('POST', '/api/app/tokens', input),
  reveal: (id: string) => apiRequest<TokenWithSecret>('POST', `/api/app/tokens/${id}/reveal`),
  revoke: (id: string) => apiRequest<TokenSummary>('POST', `/api/app/tokens/${id}/revoke`),
};
