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
import { checkMirrorUrl, describeMirror, mirrorFileExample, mirrorLayout } from './mirror-url.ts';
import { rawGithubBase, upstreamFileUrl } from './upstream-url.ts';
import { checkDatasetFile, sha256Of } from './verify-dataset.ts';

export type FetchedFile = { status: 'kept' | 'downloaded'; file: DatasetFile; url: string };

export type FetchDatasetOptions = {
  /** The data set's folder, e.g. `~/.cache/toolforge/data/nestful`. */
  directory: string;
  /** The base URL of a server laid out like raw.githubusercontent.com (`<mirror>/<owner>/<repository>/<commit>/<path>`), see mirror-url.ts. */
  mirror?: string;
  /** Per-file download limit. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called after each file, for progress lines. */
  onFile?: (result: FetchedFile) => void;
};

/**
 * What an offline user can do instead, named in every download error. With `mirror` (the download already went
 * through one) a mirror is not suggested again: the error says what is wrong with that one.
 */
export function offlineAdvice(dataset: Dataset, directory: string, options: { mirror?: string } = {}): string {
  return [
    `if this machine is offline, copy the ${dataset.name}/ folder from one that has it (\`toolforge data path ${dataset.name}\` there prints where it is)`,
    `and point at the folder holding it with \`export TOOLFORGE_DATA=<folder>\` (or place it at ${directory});`,
    `to use a single file, pass its path, e.g. \`--set data=<file>\``,
    ...(options.mirror === undefined ? [`; or download through a mirror: ${describeMirror(dataset)}`] : []),
  ].join(' ').replace(' ;', ';');
}

/** A mirror that did not give a file: what it must serve (at the address that was asked for), or do without it. */
function mirrorAdvice(url: string, dataset: Dataset): string {
  return `a mirror serves each pinned file at ${mirrorLayout}, here ${url} (${dataset.repository} at commit ${dataset.commit}); or drop --mirror to download from ${rawGithubBase}`;
}

async function download(url: string, options: FetchDatasetOptions, dataset: Dataset, file: DatasetFile): Promise<Uint8Array> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 120_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const { mirror } = options;
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const cause = (error as { cause?: unknown }).cause;
    const said = cause ? errorMessage(cause) : errorMessage(error);
    // fetch never connects to some ports (as browsers do not), and says only "bad port".
    const detail = said === 'bad port' ? `port ${new URL(url).port} is one fetch refuses to connect to (as browsers do), so serve it on another, e.g. 8080` : said;
    throw new ConfigError('data.unreachable', `cannot download ${dataset.name}/${file.path} from ${url}: ${detail}${mirror === undefined ? '' : `; the --mirror ${mirror} could not be reached`}`, {
      fix: mirror === undefined ? offlineAdvice(dataset, options.directory)
        : `${offlineAdvice(dataset, options.directory, { mirror })}. Else start the mirror at ${mirror} (or correct --mirror): ${mirrorAdvice(url, dataset)}`,
      cause: error,
    });
  }
  if (!response.ok) {
    await response.body?.cancel();
    if (mirror !== undefined) {
      throw new ConfigError('data.unreachable', `the --mirror ${mirror} does not serve ${dataset.name}/${file.path}: ${url} answered HTTP ${response.status}`, {
        fix: `${mirrorAdvice(url, dataset)}; ${offlineAdvice(dataset, options.directory, { mirror })}`,
      });
    }
    throw new ConfigError('data.unreachable', `cannot download ${dataset.name}/${file.path}: ${url} answered HTTP ${response.status}`, {
      fix: `check that ${rawGithubBase} serves ${dataset.repository} at commit ${dataset.commit} (e.g. ${mirrorFileExample(dataset, rawGithubBase)}); ${offlineAdvice(dataset, options.directory)}`,
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
  // A mirror that cannot work is refused before anything is fetched, as the CLI refuses it.
  if (options.mirror !== undefined) checkMirrorUrl(options.mirror);
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
          fix: `run \`toolforge data fetch ${dataset.name}${options.mirror ? ` --mirror ${options.mirror}` : ''}\` again (a broken download); if it repeats, the server (or --mirror) does not serve ${dataset.repository} at commit ${dataset.commit}: ${offlineAdvice(dataset, options.directory, options.mirror === undefined ? {} : { mirror: options.mirror })}`,
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
