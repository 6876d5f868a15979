import type { Json } from '../flows.types.ts';

/** Returns a copy of `target` with the dotted `path` set; objects along the path are copied, never changed in place. */
export function setPath(target: Json, path: string, value: unknown): Json {
  const dot = path.indexOf('.');
  if (dot < 0) return { ...target, [path]: value };
  const head = path.slice(0, dot);
  const child = target[head];
  const base = child !== null && typeof child === 'object' && !Array.isArray(child) ? (child as Json) : {};
  return { ...target, [head]: setPath(base, path.slice(dot + 1), value) };
}

/** Returns a copy of `target` without the dotted `path` (unchanged when it is not there). */
export function deletePath(target: Json, path: string): Json {
  const dot = path.indexOf('.');
  if (dot < 0) {
    if (!(path in target)) return target;
    const copy = { ...target };
    delete copy[path];
    return copy;
  }
  const head = path.slice(0, dot);
  const child = target[head];
  if (child === null || typeof child !== 'object' || Array.isArray(child)) return target;
  return { ...target, [head]: deletePath(child as Json, path.slice(dot + 1)) };
}
