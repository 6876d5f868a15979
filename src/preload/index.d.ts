import type { HearthBridge } from '../shared/bridge.ts';

declare global {
  interface Window {
    /** Present only inside the desktop app; the browser UI reads the session from the URL. */
    hearth?: HearthBridge;
  }
}
