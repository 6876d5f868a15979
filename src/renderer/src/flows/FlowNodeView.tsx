import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { FlowNode, NodeTypeInfo } from '../api/flows.ts';

export interface FlowNodeData extends Record<string, unknown> {
  node: FlowNode;
  typeInfo: NodeTypeInfo | undefined;
  /** success, error, running, waiting, or none. */
  runStatus: string | null;
}

export type CanvasNode = Node<FlowNodeData, 'hearth'>;

const CATEGORY_ICON: Record<string, string> = {
  trigger: '⚡',
  triggers: '⚡',
  ai: '✦',
  llm: '✦',
  knowledge: '❖',
  logic: '◇',
  flow: '◇',
  integration: '⇄',
  messaging: '✉',
  data: '≡',
  action: '➜',
  actions: '➜',
  output: '◎',
};

export function categoryIcon(category: string | undefined): string {
  return CATEGORY_ICON[(category ?? '').toLowerCase()] ?? '●';
}

/** One node on the canvas: label, type, pins, and the colour of its last run. */
function FlowNodeViewInner({ data, selected }: NodeProps<CanvasNode>) {
  const { node, typeInfo, runStatus } = data;
  const outputs = typeInfo?.outputs ?? [];
  const pins = typeInfo?.pins ?? { input: true, output: true };
  return (
    <div className={`flow-node${outputs.length ? ' has-branches' : ''}${selected ? ' selected' : ''}${runStatus ? ` run-${runStatus}` : ''}`} data-testid={`node-${node.id}`} data-run-status={runStatus ?? ''}>
      {pins.input && <Handle type="target" position={Position.Left} className="pin" />}
      <div className="flow-node-head">
        <span className="flow-node-icon" aria-hidden="true">
          {categoryIcon(typeInfo?.category)}
        </span>
        <span className="flow-node-label">{node.label || typeInfo?.label || node.type}</span>
      </div>
      <div className="flow-node-meta">
        <span>{typeInfo?.label ?? node.type}</span>
        <code>{node.id}</code>
      </div>
      {runStatus && runStatus !== 'none' && <span className={`run-dot run-dot-${runStatus}`} title={runStatus} />}
      {outputs.length > 0
        ? outputs.map((output, index) => (
            <Handle
              key={output.id}
              id={output.id}
              type="source"
              position={Position.Right}
              className={`pin pin-${output.id}`}
              style={{ top: `${((index + 1) * 100) / (outputs.length + 1)}%` }}
            >
              <span className="pin-label">{output.id}</span>
            </Handle>
          ))
        : pins.output && <Handle type="source" position={Position.Right} className="pin" />}
    </div>
  );
}

export const FlowNodeView = memo(FlowNodeViewInner);
