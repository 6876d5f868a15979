// Electron entry. Everything that touches Electron lives in ./shell; the engine
// it starts is the same one `hearth serve` runs.
import { startDesktopApp } from './shell/desktop-app.ts';

startDesktopApp();
