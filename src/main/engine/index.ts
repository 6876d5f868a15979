export { Engine, createEngine, type EngineOptions } from './engine.ts';
export { startServer, DEFAULT_PORT, PortInUseError, type RunningServer } from './http/server.ts';
export { UnknownSchemaError } from './storage/database.ts';
