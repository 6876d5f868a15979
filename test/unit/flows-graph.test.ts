import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlowEdge, Item } from '../../src/main/engine/flows/flows.types.ts';
import { buildGraph, edgeId, findCycle, nextNodeId } from '../../src/main/engine/flows/graph.ts';
import { renderDeep, renderString, renderText, type MergeScope } from '../../src/main/engine/flows/merge-fields.ts';
import { NodeCatalog } from '../../src/main/engine/flows/node-catalog.ts';
import { ApiError } from '../../src/main/engine/shared/errors.ts';

const edge = (source: string, target: string): FlowEdge => ({ id: edgeId(source, target), source, target });

describe('flow graph rules', () => {
  it('edge ids follow e-<source>-<target> and e-<source>-<handle>-<target>', () => {
    assert.equal(edgeId('node1', 'node2'), 'e-node1-node2');
    assert.equal(edgeId('node2', 'node3', 'false'), 'e-node2-false-node3');
  });

  it('the next node id is one more than the highest nodeN, whatever else is there', () => {
    assert.equal(nextNodeId([]), 'node1');
    assert.equal(nextNodeId(['node1', 'node7', 'custom', 'node3']), 'node8');
  });

  //   a --> b --> c
  //         ^     |
  //         +-----+
  it('finds a cycle and names its path; a diamond is not a cycle', () => {
    assert.deepEqual(findCycle(['a', 'b', 'c'], [edge('a', 'b'), edge('b', 'c'), edge('c', 'b')]), ['b', 'c', 'b']);
    //   a --> b --> d
    //   |           ^
    //   +---> c ----+
    assert.equal(findCycle(['a', 'b', 'c', 'd'], [edge('a', 'b'), edge('a', 'c'), edge('b', 'd'), edge('c', 'd')]), null);
  });

  it('collects every problem of a graph at once, keyed by node or edge', () => {
    const catalog = new NodeCatalog();
    try {
      buildGraph(catalog, { nodes: [{ type: 'trigger' }, { type: 'nope' }, { type: 'condition' }, { type: 'output' }], edges: [{ source: 'node3', target: 'node4', sourceHandle: 'maybe' }, { source: 'node4', target: 'node3' }] });
      assert.fail('expected a 400');
    } catch (error) {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 400);
      const keys = Object.keys((error.details as { fieldErrors: Record<string, string[]> }).fieldErrors).sort();
      assert.deepEqual(keys, ['edges.e-node3-maybe-node4.sourceHandle', 'edges.e-node4-node3.source', 'nodes.node2.type']);
    }
  });
});

describe('merge fields', () => {
  const scope: MergeScope = {
    item: { json: { name: 'Ada', n: 3, user: { tags: ['x', 'y'] }, flag: false } },
    index: 1,
    nodeOutputs: new Map<string, Item[]>([['node2', [{ json: { city: 'Oslo' } }, { json: { city: 'Rome' } }]]]),
  };

  it('reads the item, dotted paths, array indexes and other nodes (the item at the same position)', () => {
    assert.equal(renderText('Hi {{name}} from {{ [node2].city }}, tag {{user.tags.1}}', scope), 'Hi Ada from Rome, tag y');
    assert.equal(renderText('{{missing}}|{{[node9].x}}|{{user}}', scope), '|' + '|' + '{"tags":["x","y"]}');
  });

  it('a value that is exactly one merge field keeps its type', () => {
    assert.equal(renderString('{{n}}', scope), 3);
    assert.equal(renderString('{{flag}}', scope), false);
    assert.deepEqual(renderDeep({ list: ['{{user.tags}}', 'n={{n}}'] }, scope), { list: [['x', 'y'], 'n=3'] });
  });

  it('falls back to the first item of a node whose output is shorter', () => {
    assert.equal(renderText('{{[node2].city}}', { ...scope, index: 5 }), 'Oslo');
  });
});
