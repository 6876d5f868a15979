import { z } from 'zod';
import type { FieldErrors } from '../shared/errors.ts';
import type { Json } from './flows.types.ts';
import { MERGE_FIELD_DOCS } from './merge-fields.ts';
import { actionNode } from './nodes/action.node.ts';
import { conditionNode } from './nodes/condition.node.ts';
import { httpRequestNode } from './nodes/http-request.node.ts';
import { llmChainNode } from './nodes/llm-chain.node.ts';
import { messagingTriggerNode } from './nodes/messaging-trigger.node.ts';
import type { AnyNodeDefinition } from './nodes/node.types.ts';
import { outputNode } from './nodes/output.node.ts';
import { sendMessagingNode } from './nodes/send-messaging.node.ts';
import { triggerNode } from './nodes/trigger.node.ts';

const DEFINITIONS: readonly AnyNodeDefinition[] = [triggerNode, messagingTriggerNode, llmChainNode, httpRequestNode, conditionNode, sendMessagingNode, actionNode, outputNode];

export const NODE_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

export const NODE_ID_CONVENTION = {
  pattern: NODE_ID_PATTERN.source,
  autoAssigned: 'nodeN',
  description:
    'Node ids are unique in a flow. When omitted, the next free nodeN is assigned (one more than the highest N in use). ' +
    'Ids are letters, digits and underscores, starting with a letter, so edge ids stay readable: e-<source>-<target>, ' +
    'and e-<source>-<handle>-<target> for edges leaving an If node.',
  edgeIds: ['e-<source>-<target>', 'e-<source>-<handle>-<target>'],
} as const;

export interface CatalogEntry {
  type: string;
  label: string;
  category: string;
  description: string;
  pins: { input: boolean; output: boolean };
  configSchema: Json;
  defaultConfig: Json;
  outputs?: Array<{ id: string }>;
}

export type ConfigResult = { ok: true; config: Json } | { ok: false; fieldErrors: FieldErrors };

/** The node types, their schemas and defaults: GET /node-types and every config validation read from here. */
export class NodeCatalog {
  private readonly byType = new Map<string, AnyNodeDefinition>();
  private readonly defaults = new Map<string, Json>();
  private response: { nodeTypes: CatalogEntry[]; mergeFields: typeof MERGE_FIELD_DOCS; nodeIdConvention: typeof NODE_ID_CONVENTION } | undefined;

  constructor(definitions: readonly AnyNodeDefinition[] = DEFINITIONS) {
    for (const def of definitions) {
      this.byType.set(def.type, def);
      this.defaults.set(def.type, def.configSchema.parse({}) as Json);
    }
  }

  get types(): string[] {
    return [...this.byType.keys()];
  }

  get(type: string): AnyNodeDefinition | undefined {
    return this.byType.get(type);
  }

  require(type: string): AnyNodeDefinition {
    const def = this.byType.get(type);
    if (!def) throw new Error(`Unknown node type ${type}`);
    return def;
  }

  defaultConfig(type: string): Json {
    return structuredClone(this.defaults.get(type) ?? {});
  }

  /** Validates a whole config (omitted fields take the defaults); errors are keyed `<prefix>.<path>`. */
  parseConfig(type: string, config: Json, prefix: string): ConfigResult {
    const result = this.require(type).configSchema.safeParse(config);
    if (result.success) return { ok: true, config: result.data as Json };
    const fieldErrors: FieldErrors = {};
    for (const issue of result.error.issues) {
      const key = [prefix, ...issue.path.map(String)].join('.');
      (fieldErrors[key] ??= []).push(issue.message);
    }
    return { ok: false, fieldErrors };
  }

  describe(): NonNullable<NodeCatalog['response']> {
    this.response ??= {
      nodeTypes: [...this.byType.values()].map((def) => ({
        type: def.type,
        label: def.label,
        category: def.category,
        description: def.description,
        pins: def.pins,
        configSchema: z.toJSONSchema(def.configSchema, { io: 'input', unrepresentable: 'any' }),
        defaultConfig: this.defaultConfig(def.type),
        ...(def.outputs ? { outputs: def.outputs.map((o) => ({ id: o.id })) } : {}),
      })),
      mergeFields: MERGE_FIELD_DOCS,
      nodeIdConvention: NODE_ID_CONVENTION,
    };
    return this.response;
  }
}
