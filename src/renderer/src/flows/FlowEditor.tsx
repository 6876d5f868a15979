import { ReactFlowProvider } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { errorText } from '../api/http.ts';
import { FINISHED_STATUSES, flowsApi, type Execution, type FlowGraph, type FlowNode, type NodeTypeInfo, type Position } from '../api/flows.ts';
import { hrefFor } from '../router.ts';
import { ErrorNote } from '../ui/Notice.tsx';
import { useLoad } from '../ui/useLoad.ts';
import { ActiveToggle } from './ActiveToggle.tsx';
import { ConfigPanel } from './ConfigPanel.tsx';
import { FlowCanvas } from './FlowCanvas.tsx';
import { NodePalette } from './NodePalette.tsx';
import { RunPanel } from './RunPanel.tsx';
import { useFlowEvents } from './useFlowEvents.ts';

const STEP_X = 320;
const POLL_MS = 1000;
const MOVE_DEBOUNCE_MS = 300;

/** Where a new node goes: right of the node it follows, or right of everything. */
function nextPosition(graph: FlowGraph, after: FlowNode | undefined): Position {
  if (after) {
    const taken = graph.nodes.filter((n) => Math.abs(n.position.x - (after.position.x + STEP_X)) < 40).length;
    return { x: after.position.x + STEP_X, y: after.position.y + taken * 140 };
  }
  if (graph.nodes.length === 0) return { x: 80, y: 160 };
  const rightmost = graph.nodes.reduce((a, b) => (b.position.x > a.position.x ? b : a));
  return { x: rightmost.position.x + STEP_X, y: rightmost.position.y };
}

/** A flow on the canvas: palette, graph, node settings, runs; live with edits made elsewhere. */
export function FlowEditor({ flowId }: { flowId: string }) {
  const catalog = useLoad(() => flowsApi.catalog(), 'catalog');
  const [graph, setGraph] = useState<FlowGraph | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [execution, setExecution] = useState<Execution | null>(null);
  const [executions, setExecutions] = useState<Execution[]>([]);
  const [showRuns, setShowRuns] = useState(false);
  const [name, setName] = useState('');
  const moveTimers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const pendingMoves = useRef(new Map<string, Position>());

  const typeMap = useMemo(() => new Map<string, NodeTypeInfo>((catalog.data?.nodeTypes ?? []).map((t) => [t.type, t])), [catalog.data]);

  const reload = useCallback(async () => {
    try {
      const next = await flowsApi.getGraph(flowId);
      // Moves not yet saved stay where the user put them.
      for (const node of next.nodes) node.position = pendingMoves.current.get(node.id) ?? node.position;
      setGraph((previous) => (previous && JSON.stringify(previous) === JSON.stringify(next) ? previous : next));
      setLoadError(null);
    } catch (e) {
      setLoadError(errorText(e));
    }
  }, [flowId]);

  useEffect(() => {
    void reload();
  }, [reload]);
  useEffect(() => {
    if (graph) setName((current) => current || graph.name);
  }, [graph]);
  const loadExecutions = useCallback(async () => {
    try {
      setExecutions(await flowsApi.listExecutions(flowId));
    } catch {
      // The list is a convenience; the run itself reports its own errors.
    }
  }, [flowId]);
  useEffect(() => {
    void loadExecutions();
  }, [loadExecutions]);

  const watched = useRef<Execution | null>(null);
  watched.current = execution;
  const liveMode = useFlowEvents(flowId, (change) => {
    void reload();
    // A run's progress arrives on the feed: show it now rather than at the next poll.
    const current = watched.current;
    if (change.kind.startsWith('execution.') && change.executionId && current?.id === change.executionId) {
      flowsApi
        .getExecution(flowId, change.executionId)
        .then((next) => setExecution((now) => (now?.id === next.id ? next : now)))
        .catch(() => undefined);
    }
    if (change.kind === 'execution.finished') void loadExecutions();
  });


  // Poll the run being watched every second until it finishes.
  useEffect(() => {
    if (!execution || FINISHED_STATUSES.has(execution.status)) return;
    const timer = setTimeout(() => {
      flowsApi
        .getExecution(flowId, execution.id)
        .then((next) => {
          setExecution(next);
          if (FINISHED_STATUSES.has(next.status)) {
            void loadExecutions();
            void reload();
          }
        })
        .catch((e: unknown) => setError(errorText(e)));
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [execution, flowId, loadExecutions, reload]);

  const act = useCallback(
    async (work: () => Promise<unknown>) => {
      setError(null);
      try {
        await work();
      } catch (e) {
        setError(errorText(e));
      }
      await reload();
    },
    [reload],
  );

  const selected = graph?.nodes.find((n) => n.id === selectedId);

  const addNode = (type: NodeTypeInfo): void => {
    if (!graph) return;
    const after = selected && typeMap.get(selected.type)?.pins.output !== false && type.pins.input ? selected : undefined;
    const afterHandle = after && typeMap.get(after.type)?.outputs?.length ? 'true' : undefined;
    void act(async () => {
      const node = await flowsApi.addNode(flowId, {
        type: type.type,
        position: nextPosition(graph, after),
        ...(after ? { connectFrom: after.id, ...(afterHandle ? { connectFromHandle: afterHandle } : {}) } : {}),
      });
      setSelectedId(node.id);
    });
  };

  const connect = useCallback((edge: { source: string; target: string; sourceHandle?: string }) => void act(() => flowsApi.addEdge(flowId, edge)), [act, flowId]);

  const move = useCallback(
    (nodeId: string, position: Position) => {
      pendingMoves.current.set(nodeId, position);
      setGraph((g) => (g ? { ...g, nodes: g.nodes.map((n) => (n.id === nodeId ? { ...n, position } : n)) } : g));
      clearTimeout(moveTimers.current.get(nodeId));
      moveTimers.current.set(
        nodeId,
        setTimeout(() => {
          flowsApi
            .updateNode(flowId, nodeId, { position })
            .catch((e: unknown) => setError(errorText(e)))
            .finally(() => {
              if (pendingMoves.current.get(nodeId) === position) pendingMoves.current.delete(nodeId);
            });
        }, MOVE_DEBOUNCE_MS),
      );
    },
    [flowId],
  );

  const deleteNodes = useCallback(
    (ids: string[]) => {
      setSelectedId(null);
      void act(() => Promise.all(ids.map((id) => flowsApi.deleteNode(flowId, id))));
    },
    [act, flowId],
  );
  const deleteEdges = useCallback((ids: string[]) => void act(() => Promise.all(ids.map((id) => flowsApi.deleteEdge(flowId, id)))), [act, flowId]);

  const run = async (): Promise<void> => {
    setError(null);
    setShowRuns(true);
    try {
      const { executionId } = await flowsApi.execute(flowId);
      setExecution({ id: executionId, workflowId: flowId, status: 'running', trigger: 'manual', startedAt: new Date().toISOString(), finishedAt: null, log: [] });
    } catch (e) {
      setError(errorText(e));
    }
  };

  const rename = async (): Promise<void> => {
    if (!graph || !name.trim() || name.trim() === graph.name) return;
    await act(() => flowsApi.updateFlow(flowId, { name: name.trim() }));
  };

  // Ctrl/Cmd+Enter runs the flow from anywhere on the page.
  const runRef = useRef(run);
  runRef.current = run;
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) {
        event.preventDefault();
        void runRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const runStatus = useMemo(() => {
    const map = new Map<string, string>();
    if (execution) {
      for (const entry of execution.log) map.set(entry.nodeId, entry.status);
      if (!FINISHED_STATUSES.has(execution.status)) for (const node of graph?.nodes ?? []) if (!map.has(node.id)) map.set(node.id, 'waiting');
    } else {
      for (const node of graph?.nodes ?? []) if (node.lastRun?.status) map.set(node.id, node.lastRun.status);
    }
    return map;
  }, [execution, graph]);

  const running = Boolean(execution && !FINISHED_STATUSES.has(execution.status));

  return (
    <div className="editor">
      <header className="editor-bar">
        <a href={hrefFor({ page: 'workflows' })} className="crumb-link" aria-label="Back to workflows">
          ← Workflows
        </a>
        <input className="title-input" aria-label="Flow name" value={name} onChange={(e) => setName(e.target.value)} onBlur={() => void rename()} onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()} maxLength={200} />
        {graph && <ActiveToggle flow={graph} onChanged={(f) => setGraph({ ...graph, ...f })} onError={setError} />}
        <span className={`live live-${liveMode}`} title={liveMode === 'live' ? 'Edits made elsewhere appear here instantly' : 'Checking for edits every 2 seconds'}>
          {liveMode === 'live' ? 'Live' : liveMode === 'polling' ? 'Syncing' : '…'}
        </span>
        <span className="grow" />
        <button type="button" className="button" onClick={() => setShowRuns((v) => !v)}>
          Runs{executions.length ? ` (${executions.length})` : ''}
        </button>
        <button type="button" className="button primary" onClick={() => void run()} disabled={running || !graph?.nodes.length} title="Run (Ctrl+Enter)">
          {running ? 'Running…' : 'Run'}
        </button>
      </header>
      <ErrorNote error={loadError ?? catalog.error ?? error} />
      <div className="editor-body">
        <NodePalette nodeTypes={catalog.data?.nodeTypes ?? []} afterLabel={selected ? selected.label || selected.id : null} onAdd={addNode} />
        <div className="editor-center">
          {graph && (
            <ReactFlowProvider>
              <FlowCanvas
                graph={graph}
                catalog={typeMap}
                runStatus={runStatus}
                selectedId={selectedId}
                onSelect={setSelectedId}
                onConnect={connect}
                onMove={move}
                onDeleteNodes={deleteNodes}
                onDeleteEdges={deleteEdges}
              />
            </ReactFlowProvider>
          )}
          {graph && graph.nodes.length === 0 && (
            <div className="canvas-empty">
              <h3>An empty flow</h3>
              <p>Pick a trigger from the palette to start; each node you add next is connected after the selected one.</p>
            </div>
          )}
          {showRuns && <RunPanel execution={execution} executions={executions} nodes={graph?.nodes ?? []} onPick={setExecution} onClose={() => setShowRuns(false)} />}
        </div>
        {selected && (
          <ConfigPanel
            key={selected.id}
            flowId={flowId}
            node={selected}
            typeInfo={typeMap.get(selected.type)}
            logEntry={execution?.log.find((l) => l.nodeId === selected.id)}
            onSaved={() => void reload()}
            onDelete={() => deleteNodes([selected.id])}
            onClose={() => setSelectedId(null)}
          />
        )}
      </div>
    </div>
  );
}
