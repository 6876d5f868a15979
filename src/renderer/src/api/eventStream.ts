import { currentSession } from './http.ts';

export interface StreamEvent {
  type: string;
  data: string;
}

export interface EventStreamHandlers {
  onOpen: () => void;
  onEvent: (event: StreamEvent) => void;
  /** The feed is not there (404, 401) or keeps failing: the caller should poll instead. */
  onUnavailable: () => void;
}

const RECONNECT_MS = 1500;
const MAX_FAILURES = 3;

/**
 * Server-sent events read over fetch. EventSource cannot send the Authorization header the
 * API needs, and a token in the URL would end up in logs, so the stream is parsed here.
 */
export function openEventStream(path: string, handlers: EventStreamHandlers): () => void {
  const controller = new AbortController();
  let failures = 0;
  let stopped = false;

  const dispatch = (block: string): void => {
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length) handlers.onEvent({ type, data: data.join('\n') });
  };

  const connect = async (): Promise<void> => {
    const session = currentSession();
    const response = await fetch(session.apiBaseUrl + path, {
      headers: { Authorization: `Bearer ${session.token ?? ''}`, Accept: 'text/event-stream' },
      signal: controller.signal,
      cache: 'no-store',
    });
    if (!response.ok || !response.body) {
      // A missing route or a refused session will not fix itself by retrying.
      failures = MAX_FAILURES;
      throw new Error(`Change feed answered ${response.status}`);
    }
    failures = 0;
    handlers.onOpen();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, '\n');
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
    }
  };

  const loop = async (): Promise<void> => {
    while (!stopped) {
      try {
        await connect();
      } catch {
        if (stopped) return;
        failures++;
      }
      if (failures >= MAX_FAILURES) {
        handlers.onUnavailable();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  };
  void loop();

  return () => {
    stopped = true;
    controller.abort();
  };
}
