import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FlowOwner } from './flows.repository.ts';

/** One change, as the canvas receives it. `type` names what happened; the rest is its payload. */
export interface FlowEvent {
  type: string;
  flowId: string | null;
  [key: string]: unknown;
}

interface Subscriber {
  owner: FlowOwner;
  flowId: string | null;
  send(event: FlowEvent & { at: string }): void;
  close(): void;
}

const HEARTBEAT_MS = 15_000;

/**
 * The change feed: every edit, run start, node result and run end of a flow is published here and
 * streamed to open canvases as server-sent events. In-process only: changes made by another process
 * on the same data folder (a CLI command while `hearth serve` runs) do not reach it.
 */
export class FlowEvents {
  private readonly subscribers = new Set<Subscriber>();
  private sequence = 0;

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  publish(owner: FlowOwner, event: FlowEvent): void {
    if (this.subscribers.size === 0) return;
    const stamped = { ...event, at: new Date().toISOString() };
    for (const sub of this.subscribers) {
      if (sub.owner.workspaceId !== owner.workspaceId || sub.owner.userId !== owner.userId) continue;
      if (sub.flowId !== null && sub.flowId !== event.flowId) continue;
      sub.send(stamped);
    }
  }

  /** Answers the request with a text/event-stream that stays open until the client leaves or the server stops. */
  stream(request: FastifyRequest, reply: FastifyReply, owner: FlowOwner, flowId: string | null): FastifyReply {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const write = (event: FlowEvent & { at: string }): void => {
      raw.write(`id: ${++this.sequence}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    };
    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const subscriber: Subscriber = {
      owner,
      flowId,
      send: write,
      close: () => {
        clearInterval(heartbeat);
        this.subscribers.delete(subscriber);
        raw.end();
      },
    };
    this.subscribers.add(subscriber);
    request.raw.once('close', () => {
      clearInterval(heartbeat);
      this.subscribers.delete(subscriber);
    });
    write({ type: 'ready', flowId, at: new Date().toISOString() });
    return reply;
  }

  /** Ends every open stream, so the HTTP server can close. */
  closeAll(): void {
    for (const sub of [...this.subscribers]) sub.close();
  }
}
