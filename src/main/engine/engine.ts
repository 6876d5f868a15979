import { CreditsService } from './credits/credits.service.ts';
import { FlowsService } from './flows/flows.service.ts';
import { IdentityService } from './identity/identity.service.ts';
import { SecretBox } from './identity/secret-box.ts';
import { BasesService } from './knowledge/bases.service.ts';
import type { AskApi, KnowledgeApi, KnowledgeWriteApi } from './knowledge/knowledge.api.ts';
import type { LlmApi } from './llm/llm.types.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { stderrLogger, type Logger } from './shared/logger.ts';
import { openDatabase, type Db } from './storage/database.ts';

/** Replaced by the retrieval engine's default model once it lands. */
const DEFAULT_EMBEDDING_MODEL = 'default';

export interface EngineOptions {
  /** The data folder: database, key file, models, uploaded files. */
  dataDir: string;
  clock?: Clock;
  logger?: Logger;
}

/**
 * The whole service, free of any platform: the CLI, the tests and the Electron
 * shell all start it the same way and talk to it over HTTP.
 */
export class Engine {
  readonly dataDir: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly db: Db;
  readonly identity: IdentityService;
  readonly credits: CreditsService;
  readonly bases: BasesService;
  /** Set once the model provider service is wired here; llmChain nodes fail with an explanation until then. */
  llm: LlmApi | undefined;
  /** Set once the ask service is wired here; the knowledgeAsk action needs it. */
  ask: AskApi | undefined;
  /** Set once the knowledge service is wired here; knowledge search and add-entry actions need it. */
  knowledge: (KnowledgeApi & Partial<KnowledgeWriteApi>) | undefined;
  readonly flows: FlowsService;

  constructor(options: EngineOptions) {
    this.dataDir = options.dataDir;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? stderrLogger;
    this.db = openDatabase(this.dataDir);
    this.identity = new IdentityService(this.db, SecretBox.openInFolder(this.dataDir), this.clock);
    this.credits = new CreditsService(this.db, this.clock);
    this.bases = new BasesService(this.db, this.clock, () => DEFAULT_EMBEDDING_MODEL);
    this.flows = new FlowsService({
      db: this.db,
      clock: this.clock,
      logger: this.logger,
      credits: this.credits,
      llm: () => this.llm,
      ask: () => this.ask,
      knowledge: () => this.knowledge,
    });
    this.identity.ensureDefaults();
  }

  /** Releases everything in reverse order of creation. */
  async dispose(): Promise<void> {
    await this.flows.dispose();
    if (this.db.open) this.db.close();
    await Promise.resolve();
  }
}

export function createEngine(options: EngineOptions): Engine {
  return new Engine(options);
}
