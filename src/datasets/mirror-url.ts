/**
 * `--mirror <url>`: what a mirror is, as every message about it says (with an example of one, never of another
 * kind of server), and the check of a value before anything is fetched. A mirror is the base URL of a server laid
 * out like raw.githubusercontent.com: `fetch` asks it for `<mirror>/<owner>/<repository>/<commit>/<path>`.
 */
import { ConfigError } from '../core/errors.ts';
import type { Dataset } from './dataset-manifest.ts';
import { datasets } from './dataset-manifest.ts';
import { rawGithubBase, upstreamFileUrl } from './upstream-url.ts';

/** The mirror the messages show: a local server, the usual kind (a copy served on a machine without internet). */
export const exampleMirror = 'http://127.0.0.1:8080';

export const mirrorLayout = '<mirror>/<owner>/<repository>/<commit>/<path>';

/** One file a mirror of `dataset` must serve (its LICENSE, which every pinned data set has), at `mirror`. */
export function mirrorFileExample(dataset: Dataset, mirror: string = exampleMirror): string {
  const file = dataset.files.find((candidate) => candidate.path === 'LICENSE') ?? dataset.files[0];
  return file ? upstreamFileUrl(dataset, file, mirror) : `${mirror}/${mirrorLayout.slice('<mirror>/'.length)}`;
}

/** What a mirror is, with the example: for help text and fixes. */
export function describeMirror(dataset: Dataset = datasets[0]!): string {
  return `a mirror is a server laid out like raw.githubusercontent.com, serving each pinned file at ${mirrorLayout}: `
    + `e.g. \`--mirror ${exampleMirror}\` fetches ${dataset.name}'s LICENSE from ${mirrorFileExample(dataset)}`;
}

/**
 * What is wrong with a --mirror value, if anything: `problem` follows the value ("is not a URL"), `fix` names a mirror
 * that would work. A mirror is an http(s) base URL the files' paths can be appended to.
 */
export function mirrorProblem(value: string): { problem: string; fix: string } | undefined {
  const found = (problem: string, fix: string): { problem: string; fix: string } => ({
    problem, fix: `${fix}; ${describeMirror()}; or leave --mirror out to download from ${rawGithubBase}`,
  });
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // A host name without its scheme (`mirror.lan/raw`) gets it added; anything else, the example.
    const host = /^[\w-]+(\.[\w-]+)+(:\d+)?(\/\S*)?$/.test(value);
    return found('is not a URL', `pass the base URL of a mirror with its scheme, e.g. --mirror ${host ? `http://${value}` : exampleMirror}`);
  }
  // `localhost:8080` parses, as a URL of the scheme `localhost:`: the scheme was left out.
  if (!value.includes('://') && !url.protocol.startsWith('http')) {
    return found('has no scheme, and a mirror is fetched over http:// or https://', `e.g. --mirror http://${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return found(`uses ${url.protocol}, and a mirror is fetched over http:// or https://`, `pass an http(s) URL, e.g. --mirror ${exampleMirror}`);
  }
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) {
    const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    return found(`has a query or fragment, but each file's path is appended to the mirror (${mirrorLayout})`, `pass the base URL alone, e.g. --mirror ${base}`);
  }
  return undefined;
}

/** Checks a library caller's `mirror` and returns it; a bad one is refused naming --mirror, what is wrong, and the fix. */
export function checkMirrorUrl(value: string): string {
  const found = mirrorProblem(value);
  if (found) throw new ConfigError('config.invalid', `--mirror '${value}' ${found.problem}`, { fix: found.fix });
  return value;
}
