import type { Command } from 'commander';
import type { Knob } from '../../suites/knob.ts';
import { listSuites } from '../../suites/registry.ts';
import { listTransforms } from '../../transforms/registry.ts';
import type { CliIo } from '../cli-io.ts';

export function registerSuitesCommand(program: Command, io: CliIo): void {
  program
    .command('suites')
    .description('list the suites: ids, modes, knobs with their defaults, built-in models; then the task transforms (--transform)')
    .option('--json', 'print the suites as JSON (an array; the transforms are in the text listing)')
    .action((options: { json?: boolean }) => {
      const suites = listSuites();
      if (options.json) {
        io.stdout(`${JSON.stringify(suites.map((suite) => ({
          id: suite.id, version: suite.version, title: suite.title, description: suite.description, paper: suite.paper,
          modes: [...suite.modes], defaultCount: suite.defaultCount, knobs: suite.knobs.map((knob) => ({ ...knob })),
          builtinModels: Object.keys(suite.builtinModels).map((name) => `builtin/${name}`),
          difficultyAxes: (suite.difficultyAxes ?? []).map((axis) => ({ ...axis })),
        })), null, 2)}\n`);
        return;
      }
      if (suites.length === 0) {
        io.stdout('no suites registered\n');
        return;
      }
      const blocks = suites.map((suite) => [
        `${suite.id} (version ${suite.version}): ${suite.title}`,
        `  ${suite.description}`,
        `  paper: ${suite.paper}`,
        `  modes: ${suite.modes.join(', ')} (default ${suite.modes[0]})`,
        `  default count: ${suite.defaultCount}`,
        `  built-in models: ${Object.keys(suite.builtinModels).map((name) => `builtin/${name}`).join(', ') || '(none)'}`,
        `  knobs (--set name=value):`,
        ...suite.knobs.map((knob) => `    ${knob.name}=${describeKnob(knob)}  ${knob.description}`),
        `  difficulty axes (charted by 'report', swept by 'sweep --grid'): ${(suite.difficultyAxes ?? []).map((axis) => (axis.knob ? axis.name : `${axis.name} (task statistic)`)).join(', ') || '(none)'}`,
      ].join('\n'));
      // The transforms apply to every suite's tasks; without this listing a user meets their ids and knobs only in errors.
      const transforms = [
        'transforms (--transform id[:name=value,...] on run and generate, and an eval set\'s transforms; repeatable, applied in order):',
        ...listTransforms().map((transform) => [
          `  ${transform.id}: ${transform.description}`,
          ...transform.knobs.map((knob) => `    ${knob.name}=${describeKnob(knob)}  ${knob.description}`),
        ].join('\n')),
      ].join('\n');
      io.stdout(`${[...blocks, transforms].join('\n\n')}\n`);
    });
}

function describeKnob(knob: Knob): string {
  switch (knob.type) {
    case 'integer':
    case 'number': {
      const range = knob.min !== undefined || knob.max !== undefined ? ` in [${knob.min ?? '-inf'}, ${knob.max ?? 'inf'}]` : '';
      return `${knob.default} (${knob.type}${range})`;
    }
    case 'boolean':
      return `${knob.default} (true|false)`;
    case 'string':
      // A path is looked for from the working folder (an eval set's: its own folder): `(file)` tells the user so.
      return `${knob.default ?? '(unset)'} (${knob.path === undefined ? 'string' : knob.path === 'file' ? 'file' : 'folder'})`;
    case 'enum':
      return `${knob.default} (${knob.values.join('|')})`;
  }
}
