import { join } from 'node:path';
import { AskService } from './ask/ask.service.ts';
import { CreditsService } from './credits/credits.service.ts';
import { FlowsService } from './flows/flows.service.ts';
import { IdentityService } from './identity/identity.service.ts';
import { defaultBundledModelsDir, LocalEmbeddingModels } from './embeddings/embedding-models.ts';
import { ModelLibrary } from './embeddings/model-library.service.ts';
import { SecretBox } from './identity/secret-box.ts';
import { BasesService } from './knowledge/bases.service.ts';
import { KnowledgeService } from './knowledge/knowledge.service.ts';
import { LlmService } from './llm/llm.service.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { stderrLogger, type Logger } from './shared/logger.ts';
import { openDatabase, type Db } from './storage/database.ts';

export interface EngineOptions {
  /** The data folder: database, key file, models, uploaded files. */
  dataDir: string;
  clock?: Clock;
  logger?: Logger;
  /** Models shipped with the app (the packaged shell passes process.resourcesPath/models); default <project root>/resources/models. */
  bundledModelsDir?: string;
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
  readonly embeddings: LocalEmbeddingModels;
  readonly embeddingLibrary: ModelLibrary;
  readonly bases: BasesService;
  /** Entries, index and search: the KnowledgeApi/KnowledgeWriteApi the ask and flow engines use. */
  readonly knowledge: KnowledgeService;
  /** Seals token secrets and model API keys; its keys live in a file beside the database. */
  readonly secrets: SecretBox;
  readonly llm: LlmService;
  readonly ask: AskService;
  readonly flows: FlowsService;

  constructor(options: EngineOptions) {
    this.dataDir = options.dataDir;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? stderrLogger;
    this.db = openDatabase(this.dataDir);
    this.secrets = SecretBox.openInFolder(this.dataDir);
    this.identity = new IdentityService(this.db, this.secrets, this.clock);
    this.credits = new CreditsService(this.db, this.clock);
    // Nothing loads here: the model is read from disk on the first embed, so `hearth serve` starts fast.
    this.embeddings = new LocalEmbeddingModels({
      bundledDir: options.bundledModelsDir ?? defaultBundledModelsDir(),
      userDir: join(this.dataDir, 'models'),
      logger: this.logger,
    });
    this.embeddingLibrary = new ModelLibrary({ models: this.embeddings, logger: this.logger, clock: this.clock });
    this.bases = new BasesService(this.db, this.clock, () => this.embeddings.defaultModelId);
    this.knowledge = new KnowledgeService({ db: this.db, clock: this.clock, logger: this.logger, bases: this.bases, credits: this.credits, embeddings: this.embeddings });
    this.llm = new LlmService(this.db, this.secrets, this.clock);
    this.ask = new AskService({ db: this.db, clock: this.clock, bases: this.bases, credits: this.credits, llm: this.llm, knowledge: () => this.knowledge });
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
    this.knowledge.resumeIndexing();
  }

  /** Releases everything in reverse order of creation. */
  async dispose(): Promise<void> {
    await this.flows.dispose();
    await this.knowledge.dispose();
    await this.embeddings.dispose();
    if (this.db.open) this.db.close();
  }
}

export function createEngine(options: EngineOptions): Engine {
  return new Engine(options);
}
