import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import * as yauzl from 'yauzl';

export type ArchiveKind = 'zip' | 'tar' | 'tar.gz';

/** The archive kinds `hearth model import` accepts, by file name. */
export function archiveKind(fileName: string): ArchiveKind | undefined {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  if (lower.endsWith('.tar')) return 'tar';
  return undefined;
}

export function stripArchiveExtension(fileName: string): string {
  return fileName.replace(/\.(zip|tar\.gz|tgz|tar)$/i, '');
}

function insideOf(root: string, name: string): string {
  const target = resolve(root, name);
  const rel = relative(root, target);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`The archive entry ${name} points outside the folder it is extracted to.`);
  return target;
}

/** Streams each entry to disk (model archives run to hundreds of MB); refuses entries that escape `dest`. */
async function extractZip(file: string, dest: string): Promise<void> {
  // yauzl also validates names (no absolute paths, no `..`) because decodeStrings is on.
  const zip = await yauzl.openPromise(file, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true });
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | undefined>((resolveEntry, reject) => {
        zip.once('entry', (e: yauzl.Entry) => resolveEntry(e));
        zip.once('end', () => resolveEntry(undefined));
        zip.once('error', reject);
        zip.readEntry();
      });
      zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
      if (!entry) return;
      const target = insideOf(dest, entry.fileName);
      if (entry.fileName.endsWith('/')) {
        mkdirSync(target, { recursive: true });
        continue;
      }
      mkdirSync(dirname(target), { recursive: true });
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target));
    }
  } finally {
    zip.close();
  }
}

/** Extracts a .zip, .tar or .tar.gz into `dest` (which must exist). */
export async function extractArchive(file: string, kind: ArchiveKind, dest: string): Promise<void> {
  if (kind === 'zip') return extractZip(file, dest);
  // node-tar detects gzip itself, and refuses absolute and `..` paths (strict turns its warnings into errors).
  await tar.x({ file, cwd: dest, strict: true });
}
