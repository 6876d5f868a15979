import type Database from 'better-sqlite3';
import type { Db } from '../storage/database.ts';
import type { Execution, ExecutionStatus, LogEntry } from './flows.types.ts';

interface ExecutionRow {
  id: string;
  flow_id: string;
  status: ExecutionStatus;
  trigger: Execution['trigger'];
  started_at: string;
  finished_at: string | null;
  error: string | null;
  log: string;
  runner_pid: number;
  runner_instance: string;
}

const toExecution = (r: ExecutionRow): Execution => ({
  id: r.id,
  workflowId: r.flow_id,
  status: r.status,
  trigger: r.trigger,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  ...(r.error !== null ? { error: r.error } : {}),
  log: JSON.parse(r.log) as LogEntry[],
});

export interface RunnerIdentity {
  pid: number;
  instance: string;
}

/** Execution records. Only the most recent `keep` per flow survive each new run. */
export class ExecutionsRepository {
  private readonly db: Db;
  private readonly insertStmt: Database.Statement;
  private readonly pruneStmt: Database.Statement;
  private readonly progressStmt: Database.Statement;
  private readonly finishStmt: Database.Statement;

  constructor(db: Db) {
    this.db = db;
    this.insertStmt = db.prepare(
      `INSERT INTO flow_executions (id, flow_id, workspace_id, status, trigger, started_at, runner_pid, runner_instance) VALUES (?, ?, ?, 'running', ?, ?, ?, ?)`,
    );
    this.pruneStmt = db.prepare(
      `DELETE FROM flow_executions WHERE flow_id = @flowId AND rowid <= (SELECT rowid FROM flow_executions WHERE flow_id = @flowId ORDER BY rowid DESC LIMIT 1 OFFSET @keep)`,
    );
    this.progressStmt = db.prepare(`UPDATE flow_executions SET log = ? WHERE id = ? AND status = 'running'`);
    this.finishStmt = db.prepare(`UPDATE flow_executions SET status = ?, finished_at = ?, error = ?, log = ? WHERE id = ?`);
  }

  /** Records a new running execution and drops the ones beyond the newest `keep` of the flow. */
  start(execution: { id: string; flowId: string; workspaceId: string; trigger: Execution['trigger']; startedAt: string }, runner: RunnerIdentity, keep: number): void {
    this.db.transaction(() => {
      this.insertStmt.run(execution.id, execution.flowId, execution.workspaceId, execution.trigger, execution.startedAt, runner.pid, runner.instance);
      this.pruneStmt.run({ flowId: execution.flowId, keep });
    })();
  }

  progress(id: string, log: readonly LogEntry[]): void {
    this.progressStmt.run(JSON.stringify(log), id);
  }

  finish(id: string, status: ExecutionStatus, finishedAt: string, error: string | null, log: readonly LogEntry[]): void {
    this.finishStmt.run(status, finishedAt, error, JSON.stringify(log), id);
  }

  get(flowId: string, id: string): Execution | undefined {
    const row = this.db.prepare('SELECT * FROM flow_executions WHERE id = ? AND flow_id = ?').get(id, flowId) as ExecutionRow | undefined;
    return row && toExecution(row);
  }

  list(flowId: string, limit: number): Execution[] {
    const rows = this.db.prepare('SELECT * FROM flow_executions WHERE flow_id = ? ORDER BY rowid DESC LIMIT ?').all(flowId, limit) as ExecutionRow[];
    return rows.map(toExecution);
  }

  running(): Array<{ id: string; runner: RunnerIdentity }> {
    const rows = this.db.prepare(`SELECT id, runner_pid, runner_instance FROM flow_executions WHERE status = 'running'`).all() as ExecutionRow[];
    return rows.map((r) => ({ id: r.id, runner: { pid: r.runner_pid, instance: r.runner_instance } }));
  }

  /** Marks a running execution as failed (its engine is gone). No-op when it already finished. */
  markInterrupted(id: string, finishedAt: string, error: string): void {
    this.db.prepare(`UPDATE flow_executions SET status = 'error', finished_at = ?, error = ? WHERE id = ? AND status = 'running'`).run(finishedAt, error, id);
  }
}
