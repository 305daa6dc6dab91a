import { readFileSync } from 'node:fs';
import { repositoryRoot } from '../core/data-location.ts';
import { join } from 'node:path';

/** The package version, read once from package.json. */
export const toolforgeVersion: string = (JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { version: string }).version;
