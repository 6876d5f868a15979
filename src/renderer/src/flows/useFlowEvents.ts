import { useEffect, useRef, useState } from 'react';
import { flowsApi } from '../api/flows.ts';

export type LiveMode = 'connecting' | 'live' | 'polling';

/** What changed: the feed's event name and payload, or `poll` when a timer asked. */
export interface FlowChange {
  kind: string;
  executionId?: string;
}

const POLL_MS = 2000;
/** While the feed is up, a slow check as well: a missed event costs seconds, not a stale canvas. */
const SAFETY_POLL_MS = 10_000;
/**
 * The feed names each event by what happened (`event: node.updated`). EventSource only
 * delivers named events to listeners registered by name, so every kind is listed here.
 */
const CHANGE_EVENTS = [
  'flow.created',
  'flow.updated',
  'graph.replaced',
  'graph.updated',
  'node.created',
  'node.added',
  'node.updated',
  'node.moved',
  'node.deleted',
  'node.removed',
  'edge.created',
  'edge.added',
  'edge.deleted',
  'edge.removed',
  'execution.started',
  'execution.node',
  'execution.finished',
  'node.tested',
];

/**
 * Calls `onChange` when the flow changes elsewhere (API, another window), from
 * the server-sent change feed. Falls back to polling when the feed is missing.
 */
export function useFlowEvents(flowId: string, onChange: (event: FlowChange) => void): LiveMode {
  const [mode, setMode] = useState<LiveMode>('connecting');
  const callback = useRef(onChange);
  callback.current = onChange;

  useEffect(() => {
    let poll: ReturnType<typeof setInterval> | null = null;
    const startPolling = (): void => {
      if (poll) return;
      setMode('polling');
      poll = setInterval(() => callback.current({ kind: 'poll' }), POLL_MS);
    };
    if (typeof EventSource === 'undefined') {
      startPolling();
      return () => {
        if (poll) clearInterval(poll);
      };
    }
    const source = new EventSource(flowsApi.eventsUrl(flowId));
    let opened = false;
    const changed = (event: MessageEvent<string>): void => {
      let executionId: string | undefined;
      try {
        const data = JSON.parse(event.data) as { executionId?: unknown };
        if (typeof data.executionId === 'string') executionId = data.executionId;
      } catch {
        // A payload that is not JSON still means "something changed".
      }
      callback.current({ kind: event.type, executionId });
    };
    source.onopen = () => {
      opened = true;
      setMode('live');
      poll ??= setInterval(() => callback.current({ kind: 'poll' }), SAFETY_POLL_MS);
    };
    source.onmessage = changed;
    for (const name of CHANGE_EVENTS) source.addEventListener(name, changed);
    source.onerror = () => {
      // A feed that never opened (404, refused) will not come back: poll instead.
      // One that dropped reconnects by itself; catch up once it does.
      if (!opened || source.readyState === EventSource.CLOSED) {
        source.close();
        if (poll) clearInterval(poll);
        poll = null;
        startPolling();
      }
    };
    return () => {
      source.close();
      if (poll) clearInterval(poll);
    };
  }, [flowId]);

  return mode;
}
