import type { Principal } from '../identity/identity.types.ts';
import type { Clock } from '../shared/clock.ts';
import { badRequest, notFound } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import type { Db } from '../storage/database.ts';
import { BasesRepository, type BaseChanges } from './bases.repository.ts';
import { LIMITS, type KnowledgeBase } from './knowledge.types.ts';

export interface NewBase {
  name: string;
  description?: string;
  reviewBeforeIndex?: boolean;
  defaultLanguage?: string | null;
}

export class BasesService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly repo: BasesRepository;
  private readonly defaultEmbeddingModel: () => string;

  constructor(db: Db, clock: Clock, defaultEmbeddingModel: () => string) {
    this.db = db;
    this.clock = clock;
    this.repo = new BasesRepository(db);
    this.defaultEmbeddingModel = defaultEmbeddingModel;
  }

  /** Every base of the workspace; a legacy per-base key sees only its own. */
  list(principal: Principal): KnowledgeBase[] {
    const all = this.repo.list(principal.workspaceId);
    return principal.knowledgeBaseId ? all.filter((b) => b.id === principal.knowledgeBaseId) : all;
  }

  /** The base, or 404 when it does not exist in the caller's workspace. */
  require(principal: Principal, id: string): KnowledgeBase {
    const base = this.repo.get(principal.workspaceId, id);
    if (!base) throw notFound(`Knowledge base ${id}`);
    return base;
  }

  create(principal: Principal, input: NewBase): KnowledgeBase {
    return this.db
      .transaction(() => {
        if (this.repo.count(principal.workspaceId) >= LIMITS.basesPerWorkspace) {
          throw badRequest(`A workspace holds at most ${LIMITS.basesPerWorkspace} knowledge bases.`, { name: [`Limit of ${LIMITS.basesPerWorkspace} bases reached`] });
        }
        const now = this.clock.now().toISOString();
        const base: KnowledgeBase = {
          id: newId(),
          orgId: principal.workspaceId,
          name: input.name,
          description: input.description ?? '',
          embeddingModel: this.defaultEmbeddingModel(),
          reviewBeforeIndex: input.reviewBeforeIndex ?? false,
          defaultLanguage: input.defaultLanguage ?? null,
          sourceCount: 0,
          entryCount: 0,
          indexing: false,
          lastIndexedAt: null,
          createdAt: now,
          updatedAt: now,
        };
        this.repo.insert(base);
        return this.repo.get(principal.workspaceId, base.id)!;
      })
      .immediate();
  }

  update(principal: Principal, id: string, changes: BaseChanges): KnowledgeBase {
    this.require(principal, id);
    this.repo.update(id, changes, this.clock.now().toISOString());
    return this.require(principal, id);
  }

  touch(id: string): void {
    this.repo.touch(id, this.clock.now().toISOString());
  }

  /** Deletes the base and, through foreign keys, everything in it. App sessions only. */
  delete(principal: Principal, id: string): void {
    this.require(principal, id);
    this.repo.delete(id);
  }
}
