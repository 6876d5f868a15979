import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Engine } from '../engine.ts';
import type { Principal } from '../identity/identity.types.ts';
import { ApiError, badRequest, forbidden, notFound } from '../shared/errors.ts';
import { isUuid } from '../shared/ids.ts';
import { FAMILY_PREFIX, type AnyRoute } from './route.ts';
import { allRoutes } from './routes.ts';
import { parseOrThrow } from './validation.ts';

/** Large enough for a 2000-row import of long multi-byte answers; anything bigger is refused with 400. */
export const JSON_BODY_LIMIT_BYTES = 32 * 1024 * 1024;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4747;

export interface ServerOptions {
  port: number;
  host?: string;
  /** Folder with the built UI (index.html); served at `/` when present. */
  uiDir?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  app: FastifyInstance;
  dispose(): Promise<void>;
}

export class PortInUseError extends Error {
  readonly port: number;

  constructor(port: number, host: string) {
    super(`Port ${port} on ${host} is already in use. Pick another with --port N or the HEARTH_PORT environment variable.`);
    this.name = 'PortInUseError';
    this.port = port;
  }
}

function presentedSecret(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    return match ? match[1].trim() : header.trim();
  }
  const apiKey = request.headers['x-api-key'];
  return (Array.isArray(apiKey) ? apiKey[0] : apiKey)?.trim() || undefined;
}

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  // 401 bodies carry only success and error (contract section 5).
  if (error.status === 401) return reply.code(401).send({ success: false, error: error.message });
  return reply.code(error.status).send({ success: false, error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) });
}

/** Scope, app-only and legacy-key rules, in the order the contract implies. */
export function authorize(route: AnyRoute, principal: Principal, params: Record<string, string>): void {
  if (!principal.scopes.includes(route.scope)) {
    throw new ApiError(403, 'INSUFFICIENT_SCOPE', `This token lacks the ${route.scope} scope.`, { required: route.scope, scopes: principal.scopes });
  }
  if (route.appOnly && principal.kind !== 'app') throw forbidden('Only the Hearth app can do this; API tokens cannot.');
  const legacy = principal.knowledgeBaseId ? { param: 'kbId', id: principal.knowledgeBaseId, what: 'base' } : principal.flowId ? { param: 'flowId', id: principal.flowId, what: 'flow' } : null;
  if (!legacy) return;
  const target = params[legacy.param];
  if (target !== undefined && target !== legacy.id) throw forbidden(`This key is tied to ${legacy.what} ${legacy.id}.`);
  if (target === undefined && route.method !== 'GET') throw forbidden(`This key is tied to one ${legacy.what} and cannot do this.`);
}

function register(app: FastifyInstance, engine: Engine, route: AnyRoute): void {
  if (!route.scope) throw new Error(`Route ${route.method} ${route.path} declares no scope.`);
  app.route({
    method: route.method,
    url: FAMILY_PREFIX[route.family] + route.path,
    handler: async (request, reply) => {
      const principal = engine.identity.authenticate(presentedSecret(request));
      const params = request.params as Record<string, string>;
      authorize(route, principal, params);
      for (const name of route.uuidParams ?? []) {
        if (!isUuid(params[name] ?? '')) throw notFound(`${name} ${params[name]}`);
      }
      const body = route.body ? parseOrThrow(route.body, request.body ?? {}, 'body') : undefined;
      const query = route.query ? parseOrThrow(route.query, request.query ?? {}, 'query') : undefined;
      const result = await route.handler({ engine, principal, params, body, query, request, reply });
      if (result === reply || reply.sent) return reply;
      return reply.code(route.status ?? 200).send(result);
    },
  });
}

export function buildApp(engine: Engine, uiDir?: string): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: JSON_BODY_LIMIT_BYTES, routerOptions: { ignoreTrailingSlash: true } });

  // Accept JSON whatever the declared type (curl -d sends form encoding), and an empty body as none.
  app.removeAllContentTypeParsers();
  const parseJson = (_req: FastifyRequest, body: string, done: (err: Error | null, value?: unknown) => void): void => {
    if (body.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body));
    } catch {
      done(badRequest('The request body is not valid JSON.', { body: ['Malformed JSON'] }));
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJson);

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) return sendError(reply, error);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, badRequest(`The request body is larger than ${JSON_BODY_LIMIT_BYTES} bytes.`, { body: ['Body too large'] }, { limitBytes: JSON_BODY_LIMIT_BYTES }));
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, badRequest(error.message, { body: [error.message] }));
    }
    engine.logger.error(`Unhandled error on ${request.method} ${request.url}`, { stack: error.stack ?? String(error) });
    return reply.code(500).send({ success: false, error: 'Internal error in Hearth. The details are in its log.', code: 'INTERNAL' });
  });

  for (const route of allRoutes()) register(app, engine, route);
  // Open change-feed streams never end by themselves; end them so close() does not wait on them.
  app.addHook('preClose', (done) => {
    engine.flows.events.closeAll();
    done();
  });

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/') || !uiDir) return sendError(reply, notFound(`Route ${request.method} ${request.url.split('?')[0]}`));
    // The UI is a single-page app: unknown paths load it and it routes itself.
    return reply.type('text/html').sendFile('index.html');
  });
  return app;
}

export async function startServer(engine: Engine, options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const uiDir = options.uiDir && existsSync(options.uiDir) ? options.uiDir : undefined;
  const app = buildApp(engine, uiDir);
  if (uiDir) {
    const fastifyStatic = (await import('@fastify/static')).default;
    await app.register(fastifyStatic, { root: uiDir, prefix: '/', wildcard: false });
  }
  try {
    await app.listen({ port: options.port, host });
  } catch (error) {
    await app.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(options.port, host);
    throw error;
  }
  const port = (app.server.address() as AddressInfo).port;
  return { url: `http://${host}:${port}`, port, app, dispose: () => app.close() };
}
