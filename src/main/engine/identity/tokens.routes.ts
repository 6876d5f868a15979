import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/route.ts';
import type { TokenRecord } from './identity.types.ts';

// The app's API page (contract 5.2-5.3): a signed-in user makes, reveals and revokes tokens.
// App-only: a token cannot mint or reveal tokens.

const createBody = z.object({
  name: z.string().trim().min(1, 'Name is required').max(120),
  access: z.enum(['read', 'write']),
  resources: z.array(z.enum(['knowledge', 'workflows'])).min(1, 'Choose at least one resource'),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
});

const tokenId = ['tokenId'] as const;

function summary(token: TokenRecord): TokenRecord & { state: 'active' | 'revoked' | 'expired' } {
  const state = token.revokedAt ? 'revoked' : token.expiresAt && Date.parse(token.expiresAt) <= Date.now() ? 'expired' : 'active';
  return { ...token, state };
}

export const tokensRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    family: 'app',
    path: '/tokens',
    scope: 'knowledge:read',
    appOnly: true,
    handler: ({ engine, principal }) => engine.identity.listTokens(principal.workspaceId).map(summary),
  }),
  defineRoute({
    method: 'POST',
    family: 'app',
    path: '/tokens',
    scope: 'knowledge:write',
    appOnly: true,
    body: createBody,
    status: 201,
    handler: ({ engine, principal, body }) => {
      const { token, secret } = engine.identity.createToken({ workspaceId: principal.workspaceId, userId: principal.userId, ...body });
      return { ...summary(token), token: secret };
    },
  }),
  defineRoute({
    method: 'POST',
    family: 'app',
    path: '/tokens/:tokenId/reveal',
    scope: 'knowledge:write',
    appOnly: true,
    uuidParams: tokenId,
    handler: ({ engine, principal, params }) => {
      const { token, secret } = engine.identity.revealToken(principal.workspaceId, params.tokenId);
      return { ...summary(token), token: secret };
    },
  }),
  defineRoute({
    method: 'POST',
    family: 'app',
    path: '/tokens/:tokenId/revoke',
    scope: 'knowledge:write',
    appOnly: true,
    uuidParams: tokenId,
    handler: ({ engine, principal, params }) => summary(engine.identity.revokeToken(principal.workspaceId, params.tokenId)),
  }),
];
