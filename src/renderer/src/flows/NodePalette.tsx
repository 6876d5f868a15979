import { useMemo, useState } from 'react';
import type { NodeTypeInfo } from '../api/flows.ts';
import { categoryIcon } from './FlowNodeView.tsx';

interface NodePaletteProps {
  nodeTypes: NodeTypeInfo[];
  afterLabel: string | null;
  onAdd: (type: NodeTypeInfo) => void;
}

/** The node catalog by category; a click adds the node after the selected one (or at the end). */
export function NodePalette({ nodeTypes, afterLabel, onAdd }: NodePaletteProps) {
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const byCategory = new Map<string, NodeTypeInfo[]>();
    for (const type of nodeTypes) {
      if (needle && !`${type.label} ${type.type} ${type.category}`.toLowerCase().includes(needle)) continue;
      const list = byCategory.get(type.category) ?? [];
      list.push(type);
      byCategory.set(type.category, list);
    }
    return [...byCategory.entries()];
  }, [nodeTypes, filter]);

  return (
    <aside className="palette" aria-label="Node palette">
      <input type="search" placeholder="Find a node…" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Find a node type" />
      <p className="muted small">{afterLabel ? <>Adds after “{afterLabel}”.</> : 'Adds to the right of the flow.'}</p>
      {groups.map(([category, types]) => (
        <section key={category} className="palette-group">
          <h3 className="sidebar-title">{category}</h3>
          {types.map((type) => (
            <button key={type.type} type="button" className="palette-item" onClick={() => onAdd(type)} data-testid={`palette-${type.type}`} title={type.description ?? type.type}>
              <span className="flow-node-icon" aria-hidden="true">
                {categoryIcon(type.category)}
              </span>
              {type.label}
            </button>
          ))}
        </section>
      ))}
      {groups.length === 0 && <p className="muted small">No node type matches.</p>}
    </aside>
  );
}
