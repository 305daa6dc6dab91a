import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { join } from 'node:path';
import { dataRoots, dataWriteDirectory, describeDataRoot, locateDataset, missingDataError, variableRootNotFolder } from '../../core/data-location.ts';
import { ConfigError } from '../../core/errors.ts';
import type { Dataset } from '../../datasets/index.ts';
import { countMissingFiles, datasetBytes, datasetNames, datasets, exampleMirror, fetchDataset, findDataset, mirrorFileExample, mirrorLayout, mirrorProblem, upstreamCommitUrl, verifyDataset } from '../../datasets/index.ts';
import { textTable } from '../../report/text-table.ts';
import type { CliIo } from '../cli-io.ts';

function datasetsNamed(names: readonly string[]): Dataset[] {
  if (names.some((name) => name.trim().toLowerCase() === 'all')) return [...datasets];
  const found = names.map((name) => {
    const dataset = findDataset(name);
    if (!dataset) {
      const aliases = datasets.flatMap((known) => known.suites.filter((suite) => suite !== known.name).map((suite) => `${suite} -> ${known.name}`)).join(', ');
      throw new ConfigError('config.invalid', `unknown data set '${name}'`, {
        fix: `one of: ${datasetNames().join(', ')} (or all); a suite's name also works (${aliases}); \`toolforge data list\` shows them`,
      });
    }
    return dataset;
  });
  // `data fetch webapi wapiibench` names one data set twice: fetch it once.
  return [...new Set(found)];
}

/** A usage error, as commander reports one ("option '--mirror <url>' argument 'x' is invalid. It ..."), with the fix inline. */
function parseMirror(value: string): string {
  const found = mirrorProblem(value);
  if (found) throw new InvalidArgumentError(`It ${found.problem}: ${found.fix}.`);
  return value;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

export function registerDataCommand(program: Command, io: CliIo): void {
  const data = program
    .command('data')
    .description('the public data sets (NESTFUL, WAPIIBench, StableToolBench): list, locate, download at pinned commits, verify')
    .addHelpText('after', [
      '',
      'Data is looked for in $TOOLFORGE_DATA (only there when set), else ../shared/data beside the repository,',
      'else the cache ($XDG_CACHE_HOME/toolforge/data or ~/.cache/toolforge/data), where `data fetch` writes.',
    ].join('\n'));

  data
    .command('list')
    .description('lists the data sets: upstream repository and commit, files, size, and where each is found')
    .option('--json', 'print the list as JSON')
    .action((options: { json?: boolean }) => {
      // A folder a broken download or a hand copy left short is shown as incomplete, not as there.
      const rows = datasets.map((dataset) => {
        const found = locateDataset(dataset.name, io.env);
        return { dataset, found, missingFiles: found ? countMissingFiles(dataset, found.directory) : dataset.files.length };
      });
      if (options.json) {
        io.stdout(`${JSON.stringify(rows.map(({ dataset, found, missingFiles }) => ({
          name: dataset.name, title: dataset.title, repository: dataset.repository, commit: dataset.commit, license: dataset.license,
          files: dataset.files.length, bytes: datasetBytes(dataset), directory: found?.directory ?? null, source: found?.root.type ?? null, missingFiles,
        })), null, 2)}\n`);
        return;
      }
      io.stdout(`${textTable({
        columns: ['data set', 'files', 'size', 'upstream', 'here'],
        rows: rows.map(({ dataset, found, missingFiles }) => [
          dataset.name, dataset.files.length, megabytes(datasetBytes(dataset)), `${dataset.repository} @ ${dataset.commit.slice(0, 12)}`,
          !found ? `absent (toolforge data fetch ${dataset.name})`
            : missingFiles > 0 ? `${found.directory}, incomplete: ${missingFiles} of ${dataset.files.length} files missing (toolforge data fetch ${dataset.name})`
              : found.directory,
        ]),
      })}\n`);
      io.stdout(`looked in: ${dataRoots(io.env).map(describeDataRoot).join('; ')}\n`);
      const notFolder = variableRootNotFolder(io.env);
      if (notFolder) io.stderr(`warning: ${notFolder('no data set can be found there').message}\n`);
    });

  data
    .command('path')
    .argument('<name>', `a data set: ${datasetNames().join(', ')} (or the suite that imports it)`)
    .description('prints the folder the suites read the data set from')
    .action((name: string) => {
      if (name.trim().toLowerCase() === 'all') {
        throw new ConfigError('config.invalid', '`data path` prints the folder of one data set, not all', {
          fix: `name one (${datasetNames().join(', ')}); \`toolforge data list\` shows where each is found`,
        });
      }
      const [dataset] = datasetsNamed([name]);
      const found = locateDataset(dataset!.name, io.env);
      if (!found) throw missingDataError(dataset!.name, `\`toolforge data path ${dataset!.name}\``, { env: io.env });
      io.stdout(`${found.directory}\n`);
    });

  data
    .command('fetch')
    .argument('<names...>', `data sets to download: ${datasetNames().join(', ')} (or the suites that import them), or all`)
    .description('downloads the pinned files from their upstream repositories into the data folder ($TOOLFORGE_DATA, else the cache), checking every sha256')
    // A model endpoint's example (http://.../v1) is no mirror: the mirror's own check and example, not the generic URL parser's.
    .option('--mirror <url>', 'download from a mirror of raw.githubusercontent.com instead (the base URL; see below)', parseMirror)
    .addHelpText('after', () => {
      const example = datasets[0]!;
      return [
        '',
        '--mirror <url> is the base URL of a server laid out like raw.githubusercontent.com: it serves each pinned',
        `file at ${mirrorLayout}. For example, with`,
        `  toolforge data fetch ${example.name} --mirror ${exampleMirror}`,
        'the server must answer',
        `  ${mirrorFileExample(example)}`,
        'and likewise each pinned file of the data set (`toolforge data list` shows each one\'s repository and commit).',
      ].join('\n');
    })
    .action(async (names: string[], options: { mirror?: string }) => {
      const notFolder = variableRootNotFolder(io.env);
      if (notFolder) throw notFolder('`data fetch` cannot write the data sets into it');
      const root = dataWriteDirectory(io.env);
      for (const dataset of datasetsNamed(names)) {
        const directory = join(root, dataset.name);
        io.stderr(`${dataset.name}: ${dataset.files.length} files from ${upstreamCommitUrl(dataset, options.mirror)} into ${directory}\n`);
        const results = await fetchDataset(dataset, {
          directory,
          ...(options.mirror ? { mirror: options.mirror } : {}),
          onFile: (result) => io.stderr(`  ${result.status === 'kept' ? 'kept (sha256 ok)' : 'downloaded'}  ${result.file.path}\n`),
        });
        const downloaded = results.filter((result) => result.status === 'downloaded').length;
        io.stdout(`${dataset.name}: ${results.length} files verified in ${directory} (${downloaded} downloaded, ${results.length - downloaded} already present)\n`);
        const read = locateDataset(dataset.name, io.env);
        if (read && read.directory !== directory) io.stderr(`note: the suites read ${dataset.name} from ${read.directory}, which is looked in first\n`);
      }
    });

  data
    .command('verify')
    .argument('<names...>', `data sets to check: ${datasetNames().join(', ')} (or the suites that import them), or all`)
    .description('checks the local copy of each file against its pinned sha256')
    .action((names: string[]) => {
      const problems: string[] = [];
      for (const dataset of datasetsNamed(names)) {
        const found = locateDataset(dataset.name, io.env);
        if (!found) throw missingDataError(dataset.name, `\`toolforge data verify ${dataset.name}\``, { env: io.env });
        const checks = verifyDataset(dataset, found.directory);
        const bad = checks.filter((check) => check.status !== 'ok');
        for (const check of bad) {
          const line = check.status === 'missing'
            ? `${dataset.name}/${check.file.path}: missing`
            : check.status === 'unreadable' ? `${dataset.name}/${check.file.path}: cannot be read (${check.reason})`
            : `${dataset.name}/${check.file.path}: sha256 ${check.actualSha256} (${check.actualBytes} bytes), pinned ${check.file.sha256} (${check.file.bytes} bytes)`;
          problems.push(`${line} in ${found.directory}`);
          io.stdout(`${line}\n`);
        }
        io.stdout(`${dataset.name}: ${checks.length - bad.length} of ${checks.length} files match the pinned sha256 in ${found.directory} (${describeDataRoot(found.root)})\n`);
      }
      if (problems.length > 0) {
        throw new ConfigError('data.checksum-mismatch', `${problems.length} data file(s) differ from the pinned release:\n  ${problems.join('\n  ')}`, {
          fix: `run \`toolforge data fetch ${names.join(' ')}\` to download the pinned files into ${dataWriteDirectory(io.env)} (a copy in $TOOLFORGE_DATA or the cache is repaired in place; a copy in ../shared/data must be replaced by hand or moved aside)`,
        });
      }
    });
}
