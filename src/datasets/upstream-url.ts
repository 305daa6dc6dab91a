import type { Dataset, DatasetFile } from './dataset-manifest.ts';

/** GitHub serves a file of a commit, byte for byte, from this host. */
export const rawGithubBase = 'https://raw.githubusercontent.com';

/**
 * The download address of one pinned file: `<base>/<owner>/<repository>/<commit>/<path>`. `mirror`
 * replaces the GitHub host with a server laid out the same way (a local mirror, or a test server).
 */
export function upstreamFileUrl(dataset: Dataset, file: DatasetFile, mirror?: string): string {
  return `${upstreamCommitUrl(dataset, mirror)}${file.path.split('/').map(encodeURIComponent).join('/')}`;
}

/** The address every file of the data set starts with, ending in `/`. */
export function upstreamCommitUrl(dataset: Dataset, mirror?: string): string {
  const ownerAndRepository = new URL(dataset.repository).pathname.replace(/^\/+|\/+$/g, '');
  const base = (mirror ?? rawGithubBase).replace(/\/+$/, '');
  return `${base}/${ownerAndRepository}/${dataset.commit}/`;
}
