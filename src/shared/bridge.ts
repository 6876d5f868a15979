/**
 * What the desktop shell's preload gives the page: where the engine listens and
 * the app session that authorises the UI. Nothing that reaches Node.
 */
export interface HearthBridge {
  apiBaseUrl: string;
  sessionToken: string;
  platform: string;
}

export const BRIDGE_ARG_PREFIX = '--hearth-bridge=';
