import type Database from 'better-sqlite3';
import type { Db } from '../storage/database.ts';
import type { FlowEdge, FlowNode, FlowSummary, Graph, Json, LastRun } from './flows.types.ts';

interface FlowRow {
  id: string;
  workspace_id: string;
  user_id: string;
  name: string;
  active: number;
  graph_version: number;
  created_at: string;
  updated_at: string;
  node_count: number;
  edge_count: number;
}

interface NodeRow {
  id: string;
  type: string;
  label: string;
  description: string;
  config: string;
  position_x: number;
  position_y: number;
  last_run: string | null;
}

interface EdgeRow {
  id: string;
  source: string;
  target: string;
  source_handle: string | null;
}

export interface FlowOwner {
  workspaceId: string;
  userId: string;
}

export interface StoredFlow extends FlowSummary {
  workspaceId: string;
  userId: string;
  graphVersion: number;
}

const toFlow = (r: FlowRow): StoredFlow => ({
  id: r.id,
  name: r.name,
  active: r.active === 1,
  nodeCount: r.node_count,
  edgeCount: r.edge_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  workspaceId: r.workspace_id,
  userId: r.user_id,
  graphVersion: r.graph_version,
});

const toNode = (r: NodeRow, withLastRun: boolean): FlowNode => ({
  id: r.id,
  type: r.type,
  nodeType: r.type,
  label: r.label,
  description: r.description,
  config: JSON.parse(r.config) as Json,
  position: { x: r.position_x, y: r.position_y },
  ...(withLastRun ? { lastRun: r.last_run ? (JSON.parse(r.last_run) as LastRun) : null } : {}),
});

const toEdge = (r: EdgeRow): FlowEdge => ({ id: r.id, source: r.source, target: r.target, ...(r.source_handle ? { sourceHandle: r.source_handle } : {}) });

// Counts are derived on read so they can never drift from the rows they count.
const SELECT_FLOW = `SELECT f.*,
  (SELECT COUNT(*) FROM flow_nodes n WHERE n.flow_id = f.id) AS node_count,
  (SELECT COUNT(*) FROM flow_edges e WHERE e.flow_id = f.id) AS edge_count
  FROM flows f`;

/** Flows, their nodes and edges. The only place their SQL lives. */
export class FlowsRepository {
  private readonly db: Db;
  private readonly statements: {
    insertNode: Database.Statement;
    insertEdge: Database.Statement;
    setLastRun: Database.Statement;
  };

  private readonly cache = new Map<string, Database.Statement>();

  /** Prepared once per SQL text: preparing costs more than running these small queries. */
  private sql(text: string): Database.Statement {
    let stmt = this.cache.get(text);
    if (!stmt) {
      stmt = this.db.prepare(text);
      this.cache.set(text, stmt);
    }
    return stmt;
  }

  constructor(db: Db) {
    this.db = db;
    this.statements = {
      insertNode: db.prepare(
        `INSERT INTO flow_nodes (flow_id, id, type, label, description, config, position_x, position_y) VALUES (@flowId, @id, @type, @label, @description, @config, @x, @y)`,
      ),
      insertEdge: db.prepare('INSERT INTO flow_edges (flow_id, id, source, target, source_handle) VALUES (?, ?, ?, ?, ?)'),
      setLastRun: db.prepare('UPDATE flow_nodes SET last_run = ? WHERE flow_id = ? AND id = ?'),
    };
  }

  insertFlow(flow: { id: string; name: string; active: boolean; createdAt: string; updatedAt: string }, owner: FlowOwner): void {
    this.sql('INSERT INTO flows (id, workspace_id, user_id, name, active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(flow.id, owner.workspaceId, owner.userId, flow.name, flow.active ? 1 : 0, flow.createdAt, flow.updatedAt);
  }

  /** The flow when it belongs to this owner; undefined otherwise (other users and workspaces look the same as missing). */
  getFlow(owner: FlowOwner, id: string): StoredFlow | undefined {
    const row = this.sql(`${SELECT_FLOW} WHERE f.id = ? AND f.workspace_id = ? AND f.user_id = ?`).get(id, owner.workspaceId, owner.userId) as FlowRow | undefined;
    return row && toFlow(row);
  }

  getFlowById(id: string): StoredFlow | undefined {
    const row = this.sql(`${SELECT_FLOW} WHERE f.id = ?`).get(id) as FlowRow | undefined;
    return row && toFlow(row);
  }

  listFlows(owner: FlowOwner): StoredFlow[] {
    const rows = this.sql(`${SELECT_FLOW} WHERE f.workspace_id = ? AND f.user_id = ? ORDER BY f.updated_at DESC, f.rowid DESC`).all(owner.workspaceId, owner.userId) as FlowRow[];
    return rows.map(toFlow);
  }

  /** Active flows of the owner that hold a node of this type. */
  listActiveWithNodeType(owner: FlowOwner, type: string): StoredFlow[] {
    const rows = this.sql(`${SELECT_FLOW} WHERE f.workspace_id = ? AND f.user_id = ? AND f.active = 1 AND EXISTS (SELECT 1 FROM flow_nodes n WHERE n.flow_id = f.id AND n.type = ?) ORDER BY f.created_at, f.rowid`)
      .all(owner.workspaceId, owner.userId, type) as FlowRow[];
    return rows.map(toFlow);
  }

  updateFlow(id: string, changes: { name?: string; active?: boolean }, updatedAt: string): void {
    const sets = ['updated_at = @updatedAt'];
    if (changes.name !== undefined) sets.push('name = @name');
    if (changes.active !== undefined) sets.push('active = @active');
    this.sql(`UPDATE flows SET ${sets.join(', ')} WHERE id = @id`).run({ id, updatedAt, name: changes.name ?? null, active: changes.active ? 1 : 0 });
  }

  touch(id: string, updatedAt: string): void {
    this.sql('UPDATE flows SET updated_at = ? WHERE id = ?').run(updatedAt, id);
  }

  graph(flowId: string, withLastRun = false): Graph {
    return { nodes: this.nodes(flowId, withLastRun), edges: this.edges(flowId) };
  }

  nodes(flowId: string, withLastRun = false): FlowNode[] {
    const rows = this.sql('SELECT * FROM flow_nodes WHERE flow_id = ? ORDER BY rowid').all(flowId) as NodeRow[];
    return rows.map((r) => toNode(r, withLastRun));
  }

  node(flowId: string, nodeId: string, withLastRun = false): FlowNode | undefined {
    const row = this.sql('SELECT * FROM flow_nodes WHERE flow_id = ? AND id = ?').get(flowId, nodeId) as NodeRow | undefined;
    return row && toNode(row, withLastRun);
  }

  edges(flowId: string): FlowEdge[] {
    const rows = this.sql('SELECT id, source, target, source_handle FROM flow_edges WHERE flow_id = ? ORDER BY rowid').all(flowId) as EdgeRow[];
    return rows.map(toEdge);
  }

  insertNode(flowId: string, node: FlowNode): void {
    this.statements.insertNode.run({ flowId, id: node.id, type: node.type, label: node.label, description: node.description, config: JSON.stringify(node.config), x: node.position.x, y: node.position.y });
  }

  updateNode(flowId: string, node: FlowNode): void {
    this.sql('UPDATE flow_nodes SET label = ?, description = ?, config = ?, position_x = ?, position_y = ? WHERE flow_id = ? AND id = ?')
      .run(node.label, node.description, JSON.stringify(node.config), node.position.x, node.position.y, flowId, node.id);
  }

  deleteNode(flowId: string, nodeId: string): void {
    this.sql('DELETE FROM flow_nodes WHERE flow_id = ? AND id = ?').run(flowId, nodeId);
  }

  insertEdge(flowId: string, edge: FlowEdge): void {
    this.statements.insertEdge.run(flowId, edge.id, edge.source, edge.target, edge.sourceHandle ?? null);
  }

  deleteEdges(flowId: string, edgeIds: readonly string[]): void {
    const stmt = this.sql('DELETE FROM flow_edges WHERE flow_id = ? AND id = ?');
    for (const id of edgeIds) stmt.run(flowId, id);
  }

  /** Replaces every node and edge (PUT graph); run state goes with the old rows. */
  replaceGraph(flowId: string, graph: Graph): void {
    this.sql('DELETE FROM flow_edges WHERE flow_id = ?').run(flowId);
    this.sql('DELETE FROM flow_nodes WHERE flow_id = ?').run(flowId);
    for (const node of graph.nodes) this.insertNode(flowId, node);
    for (const edge of graph.edges) this.insertEdge(flowId, edge);
    this.sql('UPDATE flows SET graph_version = graph_version + 1 WHERE id = ?').run(flowId);
  }

  graphVersion(flowId: string): number | undefined {
    return (this.sql('SELECT graph_version FROM flows WHERE id = ?').get(flowId) as { graph_version: number } | undefined)?.graph_version;
  }

  setLastRun(flowId: string, nodeId: string, lastRun: LastRun): void {
    this.statements.setLastRun.run(JSON.stringify(lastRun), flowId, nodeId);
  }
}
