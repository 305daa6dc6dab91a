import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset, DatasetFile } from './dataset-manifest.ts';

export type FileCheck =
  | { status: 'ok'; file: DatasetFile }
  | { status: 'missing'; file: DatasetFile }
  | { status: 'mismatch'; file: DatasetFile; actualSha256: string; actualBytes: number }
  /** There but not a file this user can read (a folder in its place, no permission, a link loop). */
  | { status: 'unreadable'; file: DatasetFile; reason: string };

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function checkDatasetFile(directory: string, file: DatasetFile): FileCheck {
  const path = join(directory, ...file.path.split('/'));
  if (!existsSync(path)) return { status: 'missing', file };
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return { status: 'unreadable', file, reason: unreadableReason(error) };
  }
  const actualSha256 = sha256Of(bytes);
  return actualSha256 === file.sha256 ? { status: 'ok', file } : { status: 'mismatch', file, actualSha256, actualBytes: bytes.length };
}

/** Checks every pinned file of `dataset` in `directory` (the data set's own folder, `<data folder>/<name>`). */
export function verifyDataset(dataset: Dataset, directory: string): FileCheck[] {
  return dataset.files.map((file) => checkDatasetFile(directory, file));
}

/** How many of `dataset`'s pinned files are not in `directory` at all (no hashing: cheap enough for a listing). */
export function countMissingFiles(dataset: Dataset, directory: string): number {
  return dataset.files.filter((file) => !existsSync(join(directory, ...file.path.split('/')))).length;
}

function unreadableReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'EISDIR') return 'a folder, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ELOOP') return 'a symbolic link loop';
  return error instanceof Error ? error.message : String(error);
}
