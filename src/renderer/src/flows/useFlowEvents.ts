import { useEffect, useRef, useState } from 'react';
import { openEventStream } from '../api/eventStream.ts';
import { flowsApi } from '../api/flows.ts';

export type LiveMode = 'connecting' | 'live' | 'polling';

/** What changed: the feed's event name (`node.updated`, `execution.node`…) or `poll` when a timer asked. */
export interface FlowChange {
  kind: string;
  executionId?: string;
}

const POLL_MS = 2000;
/** While the feed is up, a slow check as well: a missed event costs seconds, not a stale canvas. */
const SAFETY_POLL_MS = 10_000;

/**
 * Calls `onChange` when the flow changes elsewhere (API, another window), from
 * the server-sent change feed. Falls back to polling when the feed is missing.
 */
export function useFlowEvents(flowId: string, onChange: (change: FlowChange) => void): LiveMode {
  const [mode, setMode] = useState<LiveMode>('connecting');
  const callback = useRef(onChange);
  callback.current = onChange;

  useEffect(() => {
    let poll: ReturnType<typeof setInterval> | null = null;
    const pollEvery = (ms: number): void => {
      if (poll) clearInterval(poll);
      poll = setInterval(() => callback.current({ kind: 'poll' }), ms);
    };
    const close = openEventStream(flowsApi.eventsPath(flowId), {
      onOpen: () => {
        setMode('live');
        pollEvery(SAFETY_POLL_MS);
        // Whatever happened while the feed was down.
        callback.current({ kind: 'poll' });
      },
      onEvent: (event) => {
        if (event.type === 'ready') return;
        let executionId: string | undefined;
        try {
          const data = JSON.parse(event.data) as { executionId?: unknown };
          if (typeof data.executionId === 'string') executionId = data.executionId;
        } catch {
          // A payload that is not JSON still means "something changed".
        }
        callback.current({ kind: event.type, executionId });
      },
      onUnavailable: () => {
        setMode('polling');
        pollEvery(POLL_MS);
      },
    });
    return () => {
      close();
      if (poll) clearInterval(poll);
    };
  }, [flowId]);

  return mode;
}
