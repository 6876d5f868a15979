import { contextBridge } from 'electron';
import { BRIDGE_ARG_PREFIX, type HearthBridge } from '../shared/bridge.ts';

// The shell passes the engine's URL and the session as a process argument, so
// the bridge is plain data: no IPC channel, nothing that reaches Node.
const arg = process.argv.find((a) => a.startsWith(BRIDGE_ARG_PREFIX));
const fromShell = arg ? (JSON.parse(decodeURIComponent(arg.slice(BRIDGE_ARG_PREFIX.length))) as Omit<HearthBridge, 'platform'>) : null;

const bridge = {
  apiBaseUrl: fromShell?.apiBaseUrl ?? '',
  sessionToken: fromShell?.sessionToken ?? '',
  platform: process.platform,
} satisfies HearthBridge;

contextBridge.exposeInMainWorld('hearth', bridge);
