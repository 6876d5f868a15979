import type { Execution, FlowNode, LogEntry } from '../api/flows.ts';
import { timeAgo } from '../ui/format.ts';

function duration(entry: { startedAt: string; finishedAt: string | null }): string {
  if (!entry.finishedAt) return '';
  const ms = Date.parse(entry.finishedAt) - Date.parse(entry.startedAt);
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A node's output (or its branches, for an If) and its error. */
export function NodeRunResult({ entry }: { entry: LogEntry }) {
  return (
    <div className="run-result">
      <p className="small">
        <span className={`badge badge-run-${entry.status}`}>{entry.status}</span> <span className="muted">{duration(entry)}</span>
      </p>
      {entry.error && (
        <p className="notice notice-error" data-testid={`node-error-${entry.nodeId}`}>
          {entry.error}
        </p>
      )}
      {entry.outputs ? (
        entry.outputs.map((items, index) => (
          <details key={index} open={items.length > 0}>
            <summary>
              {index === 0 ? 'true' : 'false'} branch · {items.length} item{items.length === 1 ? '' : 's'}
            </summary>
            <pre className="code-block">{JSON.stringify(items, null, 2)}</pre>
          </details>
        ))
      ) : entry.output ? (
        <details open>
          <summary>
            {entry.output.length} item{entry.output.length === 1 ? '' : 's'}
          </summary>
          <pre className="code-block">{JSON.stringify(entry.output, null, 2)}</pre>
        </details>
      ) : null}
    </div>
  );
}

interface RunPanelProps {
  execution: Execution | null;
  executions: Execution[];
  nodes: FlowNode[];
  onPick: (execution: Execution) => void;
  onClose: () => void;
}

/** The run being watched (or picked from the last 20), node by node. */
export function RunPanel({ execution, executions, nodes, onPick, onClose }: RunPanelProps) {
  const labelOf = (id: string): string => nodes.find((n) => n.id === id)?.label || id;
  return (
    <section className="run-panel" aria-label="Runs">
      <header className="run-panel-head">
        <h2>Runs</h2>
        <select
          aria-label="Pick a run"
          value={execution?.id ?? ''}
          onChange={(e) => {
            const picked = executions.find((x) => x.id === e.target.value);
            if (picked) onPick(picked);
          }}
        >
          {!execution && <option value="">No run yet</option>}
          {execution && !executions.some((x) => x.id === execution.id) && <option value={execution.id}>Current run</option>}
          {executions.map((x) => (
            <option key={x.id} value={x.id}>
              {timeAgo(x.startedAt)} · {x.status}
            </option>
          ))}
        </select>
        {execution && (
          <span className={`badge badge-run-${execution.status}`} data-testid="execution-status">
            {execution.status}
          </span>
        )}
        <button type="button" className="icon-button" aria-label="Close runs" onClick={onClose}>
          ×
        </button>
      </header>
      {!execution && <p className="muted pad">Press Run to execute the flow. Each node&apos;s output appears here.</p>}
      {execution && (
        <ol className="run-log">
          {execution.log.map((entry) => (
            <li key={entry.nodeId}>
              <div>
                <strong>{labelOf(entry.nodeId)}</strong> <code className="muted">{entry.nodeId}</code>
              </div>
              <NodeRunResult entry={entry} />
            </li>
          ))}
          {execution.log.length === 0 && <li className="muted">Starting…</li>}
        </ol>
      )}
    </section>
  );
}
