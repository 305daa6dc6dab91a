/**
 * URL -> path template matching as WAPIIBench does it: strip the server URL, match every template
 * with each `{name}` as `[^/?&]+` (full match), rank candidates by fewest placeholders, then by the
 * longest template (so Google's `/{id}:batchUpdate` suffix is read as part of the path, not a value).
 */
import type { OpenApiDocument, OpenApiPath } from './document.ts';

export function compilePathTemplate(template: string): { pattern: RegExp; placeholders: string[] } {
  const placeholders: string[] = [];
  let source = '';
  let last = 0;
  for (const match of template.matchAll(/\{([^}]*)\}/g)) {
    source += escapeRegExp(template.slice(last, match.index));
    source += '([^/?&]+)';
    placeholders.push(match[1]);
    last = (match.index ?? 0) + match[0].length;
  }
  source += escapeRegExp(template.slice(last));
  return { pattern: new RegExp(`^${source}$`), placeholders };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The URL without the first server URL it starts with (unchanged when it starts with none). */
export function stripServerUrl(document: OpenApiDocument, url: string): string {
  const server = document.serverUrls.find((candidate) => candidate !== '' && url.startsWith(candidate));
  return server === undefined ? url : url.slice(server.length);
}

/** Every path whose template matches the URL (query already removed), best candidate first. */
export function matchUrlToPaths(document: OpenApiDocument, url: string): OpenApiPath[] {
  const relative = stripServerUrl(document, url);
  return document.paths
    .filter((path) => path.pattern.test(relative))
    .sort((left, right) => left.placeholders.length - right.placeholders.length || right.template.length - left.template.length);
}

/** The placeholder values of a URL under a template, as written in the URL (undefined when it does not match). */
export function extractPathParameters(document: OpenApiDocument, path: OpenApiPath, url: string): Record<string, string> | undefined {
  const match = path.pattern.exec(stripServerUrl(document, url));
  if (!match) return undefined;
  const values: Record<string, string> = {};
  path.placeholders.forEach((name, index) => {
    values[name] = match[index + 1];
  });
  return values;
}
