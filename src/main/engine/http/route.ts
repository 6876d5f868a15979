import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Engine } from '../engine.ts';
import type { Principal, Scope } from '../identity/identity.types.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
/** The contract's two families, plus the app's own settings API (models, credits) that the UI uses. */
export type Family = 'knowledge' | 'workflows' | 'app';

export const FAMILY_PREFIX: Record<Family, string> = {
  knowledge: '/api/ai/knowledge',
  workflows: '/api/ai/simple-flow',
  app: '/api/app',
};

export interface RouteContext<Body, Query> {
  engine: Engine;
  principal: Principal;
  params: Record<string, string>;
  body: Body;
  query: Query;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * One endpoint. The scope it needs is declared here, beside the path, and the
 * server refuses to register a route without one.
 */
export interface RouteDefinition<Body = unknown, Query = unknown> {
  method: HttpMethod;
  family: Family;
  /** Relative to the family prefix, in Fastify syntax: `/bases/:kbId`. */
  path: string;
  scope: Scope;
  /** Allowed for the app's own session only (deleting a base): tokens get 403 FORBIDDEN. */
  appOnly?: boolean;
  /** Path params that must be UUIDs; anything else answers 404 before the handler runs. */
  uuidParams?: readonly string[];
  body?: z.ZodType<Body>;
  query?: z.ZodType<Query>;
  /** Success status; 200 unless said. */
  status?: number;
  /** Handlers return the JSON body, or `reply` itself after sending something else (CSV, a file, a stream). */
  handler(ctx: RouteContext<Body, Query>): unknown;
}

export type AnyRoute = RouteDefinition<unknown, unknown>;

/** Keeps the handler's body and query types tied to their schemas. */
export function defineRoute<Body = undefined, Query = undefined>(route: RouteDefinition<Body, Query>): AnyRoute {
  return route;
}
