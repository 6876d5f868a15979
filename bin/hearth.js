#!/usr/bin/env node
// Hearth's CLI runs its TypeScript sources directly on Node >= 24 (type stripping).
// An older `node` on PATH hands over to the Node 24 that `npm ci` installs locally.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const major = Number(process.versions.node.split('.')[0]);

if (major < 24) {
  const local = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'node.cmd' : 'node');
  if (!existsSync(local)) {
    process.stderr.write(`Hearth needs Node 24 or newer (this is ${process.version}). Run \`npm ci\` in ${root} first.\n`);
    process.exit(1);
  }
  const result = spawnSync(local, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

await import(pathToFileURL(join(root, 'src', 'main', 'cli', 'hearth.ts')).href);
