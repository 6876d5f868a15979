import { askRoutes } from '../ask/ask.routes.ts';
import { settingsRoutes } from '../llm/settings.routes.ts';
import { embeddingModelRoutes } from '../embeddings/models.routes.ts';
import { basesRoutes } from '../knowledge/bases.routes.ts';
import { entriesRoutes } from '../knowledge/entries.routes.ts';
import { tokensRoutes } from '../identity/tokens.routes.ts';
import { meRoutes } from './me.routes.ts';
import type { AnyRoute } from './route.ts';

/** The whole route table; each subsystem contributes its own list. */
export function allRoutes(): AnyRoute[] {
  return [...meRoutes, ...basesRoutes, ...entriesRoutes, ...tokensRoutes, ...embeddingModelRoutes, ...askRoutes, ...settingsRoutes];
}
