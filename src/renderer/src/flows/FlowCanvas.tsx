import { Background, Controls, MarkerType, ReactFlow, applyNodeChanges, useReactFlow, type Connection, type Edge, type NodeChange } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FlowEdge, FlowGraph, NodeTypeInfo, Position } from '../api/flows.ts';
import { FlowNodeView, type CanvasNode } from './FlowNodeView.tsx';

const NODE_TYPES = { hearth: FlowNodeView };

interface FlowCanvasProps {
  graph: FlowGraph;
  catalog: Map<string, NodeTypeInfo>;
  runStatus: Map<string, string>;
  selectedId: string | null;
  onSelect: (nodeId: string | null) => void;
  onConnect: (edge: { source: string; target: string; sourceHandle?: string }) => void;
  onMove: (nodeId: string, position: Position) => void;
  onDeleteNodes: (nodeIds: string[]) => void;
  onDeleteEdges: (edgeIds: string[]) => void;
}

function toCanvasEdge(edge: FlowEdge, runStatus: Map<string, string>): Edge {
  const handle = edge.sourceHandle ?? undefined;
  const ran = runStatus.get(edge.source) === 'success' && runStatus.has(edge.target);
  return {
    id: edge.id,
    source: edge.source,
    target: edge.target,
    sourceHandle: handle,
    label: handle,
    animated: runStatus.get(edge.target) === 'running',
    className: ran ? 'edge-ran' : undefined,
    markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
  };
}

/** The graph on @xyflow/react: the server's graph in, user gestures out as callbacks. */
export function FlowCanvas({ graph, catalog, runStatus, selectedId, onSelect, onConnect, onMove, onDeleteNodes, onDeleteEdges }: FlowCanvasProps) {
  const [nodes, setNodes] = useState<CanvasNode[]>([]);
  // Selection belongs to the canvas; the editor's choice only seeds it (a node just added).
  const wanted = useRef(selectedId);
  wanted.current = selectedId;

  // Rebuild from the server's graph; keep what the user is dragging where it is.
  useEffect(() => {
    setNodes((previous) => {
      const dragging = new Map(previous.filter((n) => n.dragging).map((n) => [n.id, n.position]));
      const selected = new Set(previous.filter((n) => n.selected).map((n) => n.id));
      return graph.nodes.map((node) => ({
        id: node.id,
        type: 'hearth' as const,
        position: dragging.get(node.id) ?? node.position ?? { x: 0, y: 0 },
        selected: selected.has(node.id) || node.id === wanted.current,
        data: { node, typeInfo: catalog.get(node.type), runStatus: runStatus.get(node.id) ?? null },
      }));
    });
  }, [graph, catalog, runStatus]);

  // The editor picked a node (one just added) or closed its settings: follow it, but keep a
  // multi-selection (which the editor sees as "none") intact.
  useEffect(() => {
    setNodes((current) => {
      if (selectedId === null && current.filter((n) => n.selected).length > 1) return current;
      return current.map((n) => (n.selected === (n.id === selectedId) ? n : { ...n, selected: n.id === selectedId }));
    });
  }, [selectedId]);

  // Keep every node in view as the graph grows or shrinks (added here or over the API).
  const { fitView } = useReactFlow();
  const nodeCount = graph.nodes.length;
  const wrapper = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let frame = requestAnimationFrame(() => void fitView({ padding: 0.3, maxZoom: 1.1 }));
    // The run panel or the settings panel opening changes the canvas size: refit then too.
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => void fitView({ padding: 0.3, maxZoom: 1.1 }));
    });
    if (wrapper.current) observer.observe(wrapper.current);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
    };
  }, [nodeCount, fitView]);

  const edges = useMemo(() => graph.edges.map((edge) => toCanvasEdge(edge, runStatus)), [graph.edges, runStatus]);

  const onNodesChange = useCallback((changes: NodeChange<CanvasNode>[]) => {
    // Removals go through onNodesDelete (the API decides); everything else is local view state.
    setNodes((current) => applyNodeChanges(changes.filter((c) => c.type !== 'remove'), current));
  }, []);

  const connect = useCallback(
    (connection: Connection) => {
      onConnect({ source: connection.source, target: connection.target, ...(connection.sourceHandle ? { sourceHandle: connection.sourceHandle } : {}) });
    },
    [onConnect],
  );

  return (
    <div className="canvas" data-testid="flow-canvas" ref={wrapper}>
      <ReactFlow<CanvasNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodesChange={onNodesChange}
        onConnect={connect}
        onNodeDragStop={(_event, node) => onMove(node.id, { x: Math.round(node.position.x), y: Math.round(node.position.y) })}
        onNodesDelete={(deleted) => onDeleteNodes(deleted.map((n) => n.id))}
        onEdgesDelete={(deleted) => {
          // Edges that go with a deleted node are removed by the node's DELETE.
          const gone = new Set(nodes.filter((n) => n.selected).map((n) => n.id));
          const own = deleted.filter((e) => !gone.has(e.source) && !gone.has(e.target));
          if (own.length) onDeleteEdges(own.map((e) => e.id));
        }}
        onNodeClick={(_event, node) => onSelect(node.id)}
        onSelectionChange={({ nodes: picked }) => {
          // Several nodes picked (shift-drag): no single node to show settings for.
          if (picked.length > 1) onSelect(null);
        }}
        onPaneClick={() => onSelect(null)}
        deleteKeyCode={['Backspace', 'Delete']}
        fitView
        fitViewOptions={{ padding: 0.3, maxZoom: 1.1 }}
        proOptions={{ hideAttribution: true }}
        minZoom={0.2}
      >
        <Background gap={20} size={1.2} color="var(--grid)" />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
