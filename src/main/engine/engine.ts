import { AskService } from './ask/ask.service.ts';
import { CreditsService } from './credits/credits.service.ts';
import { IdentityService } from './identity/identity.service.ts';
import { SecretBox } from './identity/secret-box.ts';
import { BasesService } from './knowledge/bases.service.ts';
import type { KnowledgeApi } from './knowledge/knowledge.api.ts';
import { LlmService } from './llm/llm.service.ts';
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
  /** Seals token secrets and model API keys; its keys live in a file beside the database. */
  readonly secrets: SecretBox;
  readonly llm: LlmService;
  readonly ask: AskService;

  constructor(options: EngineOptions) {
    this.dataDir = options.dataDir;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? stderrLogger;
    this.db = openDatabase(this.dataDir);
    this.secrets = SecretBox.openInFolder(this.dataDir);
    this.identity = new IdentityService(this.db, this.secrets, this.clock);
    this.credits = new CreditsService(this.db, this.clock);
    this.bases = new BasesService(this.db, this.clock, () => DEFAULT_EMBEDDING_MODEL);
    this.llm = new LlmService(this.db, this.secrets, this.clock);
    this.ask = new AskService({ db: this.db, clock: this.clock, bases: this.bases, credits: this.credits, llm: this.llm, knowledge: () => this.knowledgeApi() });
    this.identity.ensureDefaults();
  }

  /** Until the knowledge service lands on this branch, ask has no retrieval to run. */
  private knowledgeApi(): KnowledgeApi {
    throw new Error('Knowledge search is not available yet on this branch.');
  }

  /** Releases everything in reverse order of creation. */
  async dispose(): Promise<void> {
    if (this.db.open) this.db.close();
    await Promise.resolve();
  }
}

export function createEngine(options: EngineOptions): Engine {
  return new Engine(options);
}
