import { askRoutes } from '../ask/ask.routes.ts';
import { settingsRoutes } from '../llm/settings.routes.ts';
import { flowsRoutes } from '../flows/flows.routes.ts';
import { messagingRoutes } from '../flows/messaging.routes.ts';
import { embeddingModelRoutes } from '../embeddings/models.routes.ts';
import { basesRoutes } from '../knowledge/bases.routes.ts';
import { entriesRoutes } from '../knowledge/entries.routes.ts';
import { tokensRoutes } from '../identity/tokens.routes.ts';
import { workspaceRoutes } from '../identity/workspace.routes.ts';
import { meRoutes } from './me.routes.ts';
import type { AnyRoute } from './route.ts';

/** The whole route table; each subsystem contributes its own list. */
export function allRoutes(): AnyRoute[] {
  return [...meRoutes, ...basesRoutes, ...entriesRoutes, ...tokensRoutes, ...workspaceRoutes, ...embeddingModelRoutes, ...askRoutes, ...settingsRoutes, ...flowsRoutes, ...messagingRoutes];
}
