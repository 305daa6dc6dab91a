/**
 * Downloads the pinned files of a data set into `<directory>` (the data set's own folder). Each file is
 * checked against its pinned sha256 before it is moved into place (write to a temporary name, then
 * rename), so an interrupted or corrupted download never leaves a file that looks valid. Files already
 * present with the right hash are kept without a download.
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, errorMessage } from '../core/errors.ts';
import type { Dataset, DatasetFile } from './dataset-manifest.ts';
import { upstreamFileUrl } from './upstream-url.ts';
import { checkDatasetFile, sha256Of } from './verify-dataset.ts';

export type FetchedFile = { status: 'kept' | 'downloaded'; file: DatasetFile; url: string };

export type FetchDatasetOptions = {
  /** The data set's folder, e.g. `~/.cache/toolforge/data/nestful`. */
  directory: string;
  /** A server laid out like raw.githubusercontent.com (`<owner>/<repository>/<commit>/<path>`). */
  mirror?: string;
  /** Per-file download limit. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called after each file, for progress lines. */
  onFile?: (result: FetchedFile) => void;
};

/** What an offline user can do instead, named in every download error. */
export function offlineAdvice(dataset: Dataset, directory: string): string {
  return [
    `if this machine is offline, copy the ${dataset.name}/ folder from one that has it (\`toolforge data path ${dataset.name}\` there prints where it is)`,
    `and point at the folder holding it with \`export TOOLFORGE_DATA=<folder>\` (or place it at ${directory});`,
    `to use a single file, pass its path, e.g. \`--set data=<file>\`; or download through a mirror with --mirror <url>`,
  ].join(' ');
}

async function download(url: string, options: FetchDatasetOptions, dataset: Dataset, file: DatasetFile): Promise<Uint8Array> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 120_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause ? errorMessage(cause) : errorMessage(error);
    throw new ConfigError('data.unreachable', `cannot download ${dataset.name}/${file.path} from ${url}: ${detail}`, {
      fix: offlineAdvice(dataset, options.directory),
      cause: error,
    });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ConfigError('data.unreachable', `cannot download ${dataset.name}/${file.path}: ${url} answered HTTP ${response.status}`, {
      fix: `check that the server (or --mirror) serves ${dataset.repository} at commit ${dataset.commit}; ${offlineAdvice(dataset, options.directory)}`,
    });
  }
  return new Uint8Array(await response.arrayBuffer());
}

function writeAtomically(path: string, bytes: Uint8Array): void {
  // A folder (or anything but a file) in the file's place is the user's: named, not removed.
  if (existsSync(path) && !statSync(path).isFile()) {
    throw new ConfigError('config.invalid', `cannot write ${path}: a folder (or another non-file) is in its place; nothing else was changed`, {
      fix: `move ${path} aside, then run \`toolforge data fetch\` again`,
    });
  }
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.download-${process.pid}`;
  try {
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

export async function fetchDataset(dataset: Dataset, options: FetchDatasetOptions): Promise<FetchedFile[]> {
  const results: FetchedFile[] = [];
  for (const file of dataset.files) {
    options.signal?.throwIfAborted();
    const url = upstreamFileUrl(dataset, file, options.mirror);
    let result: FetchedFile;
    if (checkDatasetFile(options.directory, file).status === 'ok') {
      result = { status: 'kept', file, url };
    } else {
      const bytes = await download(url, options, dataset, file);
      const actual = sha256Of(bytes);
      if (actual !== file.sha256) {
        throw new ConfigError('data.checksum-mismatch', `${dataset.name}/${file.path} downloaded from ${url} has sha256 ${actual} (${bytes.length} bytes), but the pinned file has sha256 ${file.sha256} (${file.bytes} bytes); nothing was written`, {
          fix: `run \`toolforge data fetch ${dataset.name}${options.mirror ? ` --mirror ${options.mirror}` : ''}\` again (a broken download); if it repeats, the server (or --mirror) does not serve ${dataset.repository} at commit ${dataset.commit}: ${offlineAdvice(dataset, options.directory)}`,
        });
      }
      writeAtomically(join(options.directory, ...file.path.split('/')), bytes);
      result = { status: 'downloaded', file, url };
    }
    results.push(result);
    options.onFile?.(result);
  }
  return results;
}
