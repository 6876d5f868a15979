import { z } from 'zod';
import type { CreditsService } from '../../credits/credits.service.ts';
import type { Principal } from '../../identity/identity.types.ts';
import type { AskApi, KnowledgeApi, KnowledgeWriteApi } from '../../knowledge/knowledge.api.ts';
import type { LlmApi } from '../../llm/llm.types.ts';
import type { Item, Json } from '../flows.types.ts';
import type { MergeScope } from '../merge-fields.ts';

export type NodeCategory = 'trigger' | 'ai' | 'logic' | 'data' | 'integration' | 'messaging' | 'output';

export interface OutgoingMessage {
  channel: string;
  recipient: string;
  text: string;
  /** Node config's webhook; the workspace setting is used when empty. */
  webhookUrl: string;
}

export interface SentMessage {
  id: string;
  delivery: 'outbox' | 'delivered' | 'failed';
  attempts: number;
  error?: string;
}

/** What node runners may use. Late-bound getters, because model and knowledge services may be wired after flows. */
export interface NodeServices {
  credits: CreditsService;
  llm(): LlmApi | undefined;
  ask(): AskApi | undefined;
  knowledge(): (KnowledgeApi & Partial<KnowledgeWriteApi>) | undefined;
  sendMessage(context: { principal: Principal; flowId: string; executionId: string | null; nodeId: string }, message: OutgoingMessage): Promise<SentMessage>;
}

export interface NodeRunContext<Config> {
  nodeId: string;
  config: Config;
  /** What the node receives: the items on its incoming edges, in edge order. */
  items: Item[];
  nodeOutputs: ReadonlyMap<string, readonly Item[]>;
  principal: Principal;
  flowId: string;
  /** null for single-node tests. */
  executionId: string | null;
  /** Items an outside event (an incoming message) hands to a trigger instead of its sample. */
  seed?: Item[];
  signal: AbortSignal;
  services: NodeServices;
}

export type NodeResult = { output: Item[] } | { outputs: Item[][] };

/**
 * One node type: its catalog entry and its runner, in one file per type. The config schema is zod;
 * the catalog serves it as JSON Schema (z.toJSONSchema), so validation and documentation cannot drift.
 */
export interface NodeDefinition<Schema extends z.ZodType = z.ZodType> {
  type: string;
  label: string;
  category: NodeCategory;
  description: string;
  pins: { input: boolean; output: boolean };
  /** Branch outputs (If): edges leaving the node name one of these in sourceHandle. */
  outputs?: ReadonlyArray<{ id: string }>;
  /** Seeded when a run starts (trigger types). */
  isStart?: boolean;
  configSchema: Schema;
  /** Whether running this config may spend credits (decides 402 before execute and test). */
  spendsCredits(config: z.output<Schema>): boolean;
  run(ctx: NodeRunContext<z.output<Schema>>): NodeResult | Promise<NodeResult>;
}

/** The registry's view: configs are plain JSON objects already validated by the schema. */
export interface AnyNodeDefinition {
  type: string;
  label: string;
  category: NodeCategory;
  description: string;
  pins: { input: boolean; output: boolean };
  outputs?: ReadonlyArray<{ id: string }>;
  isStart?: boolean;
  configSchema: z.ZodType;
  spendsCredits(config: Json): boolean;
  run(ctx: NodeRunContext<Json>): NodeResult | Promise<NodeResult>;
}

export function defineNode<Schema extends z.ZodType>(definition: NodeDefinition<Schema>): AnyNodeDefinition {
  return definition as unknown as AnyNodeDefinition;
}

/** Thrown by runners for failures that belong in the node's log entry (bad input, HTTP error, model error). */
export class NodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeError';
  }
}

export function scopeFor(ctx: NodeRunContext<unknown>, index: number): MergeScope {
  return { item: ctx.items[index], index, nodeOutputs: ctx.nodeOutputs };
}

/** A JSON object (an item's json, a record of fields). */
export const jsonObjectSchema: z.ZodType<Json> = z.record(z.string(), z.unknown());

export const itemSchema = z.strictObject({ json: jsonObjectSchema });
