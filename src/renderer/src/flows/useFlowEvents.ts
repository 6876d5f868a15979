import { useEffect, useRef, useState } from 'react';
import { flowsApi } from '../api/flows.ts';

export type LiveMode = 'connecting' | 'live' | 'polling';

const POLL_MS = 2000;
/** Event names the change feed may use; any of them means "the graph changed". */
const CHANGE_EVENTS = ['change', 'changed', 'graph', 'flow', 'node', 'edge', 'nodes', 'edges', 'execution', 'update'];

/**
 * Calls `onChange` when the flow changes elsewhere (API, another window), from
 * the server-sent change feed. Falls back to polling when the feed is missing.
 */
export function useFlowEvents(flowId: string, onChange: () => void): LiveMode {
  const [mode, setMode] = useState<LiveMode>('connecting');
  const callback = useRef(onChange);
  callback.current = onChange;

  useEffect(() => {
    let poll: ReturnType<typeof setInterval> | null = null;
    const startPolling = (): void => {
      if (poll) return;
      setMode('polling');
      poll = setInterval(() => callback.current(), POLL_MS);
    };
    if (typeof EventSource === 'undefined') {
      startPolling();
      return () => {
        if (poll) clearInterval(poll);
      };
    }
    const source = new EventSource(flowsApi.eventsUrl(flowId));
    let opened = false;
    const changed = (): void => callback.current();
    source.onopen = () => {
      opened = true;
      setMode('live');
    };
    source.onmessage = changed;
    for (const name of CHANGE_EVENTS) source.addEventListener(name, changed);
    source.onerror = () => {
      // A feed that never opened (404, refused) will not come back: poll instead.
      // One that dropped reconnects by itself; catch up once it does.
      if (!opened || source.readyState === EventSource.CLOSED) {
        source.close();
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
