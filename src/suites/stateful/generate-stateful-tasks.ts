/**
 * A generation run for one scenario: programs from one occurrence book (III-C/D), each translated (template,
 * offline) and given oracles by running the reference program in the sandbox (III-F). Programs whose reference
 * does not pass its own test cases are dropped and replaced. Same options => identical tasks.
 */
import { ToolForgeError } from '../../core/errors.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import type { Sandbox } from '../../sandbox/spec.ts';
import { OccurrenceBook } from './occurrence-book.ts';
import { buildOracle, type TestCase } from './oracle.ts';
import { composeProgram, renderInitBlock, type BranchMode, type StatefulProgram } from './program-generator.ts';
import { programStatistics, type ProgramStatistics } from './program-statistics.ts';
import type { ScenarioId } from './stateful-backend.ts';
import { statefulScenarios } from './stateful-scenarios.ts';
import { translateProgram } from './template-instruction.ts';

export type StatefulGenerationOptions = {
  scenario: ScenarioId;
  seed: number;
  count: number;
  /** API calls per execution path (default 5). */
  calls?: number;
  branch?: BranchMode;
  /** false: the paper's w/o-COV ablation (uniform choice among valid transitions). */
  coverage?: boolean;
};

export type StatefulTaskData = {
  /** `stateful/<scenario>/<seed>/<index>` */
  id: string;
  scenario: ScenarioId;
  index: number;
  program: StatefulProgram;
  /** The reference program as the sandbox runs it for the first test case (initialization block included). */
  referenceCode: string;
  testCases: TestCase[];
  instruction: string;
  /** Names the initialization block defines (shown to the model as preloaded). */
  preloaded: string[];
  statistics: ProgramStatistics;
};

export type StatefulGenerationRun = {
  tasks: StatefulTaskData[];
  /** The frequency book after the run (`{"A||B": n}`). */
  book: Record<string, number>;
  /** Programs dropped because the reference failed its own test cases. */
  rejected: { index: number; reason: string }[];
};

function programKnobs(options: StatefulGenerationOptions) {
  return { calls: options.calls ?? 5, branch: options.branch ?? 'sampled', guidance: options.coverage === false ? 'uniform' : 'coverage' } as const;
}

/**
 * The first `count` programs a generation run with these options draws, without oracles (a run replaces the rare
 * program whose reference fails its own test cases, so its programs can differ from here on). Fig. 3 in reports.
 */
export function drawPrograms(options: StatefulGenerationOptions): StatefulProgram[] {
  const definition = statefulScenarios[options.scenario];
  const rng = new Rng(deriveSeed(options.seed, 'stateful', options.scenario));
  let book = new OccurrenceBook();
  const programs: StatefulProgram[] = [];
  for (let attempt = 0; attempt < options.count; attempt += 1) {
    const generated = definition.generateProgram(programKnobs(options), rng.child('program', attempt), book);
    book = generated.book;
    programs.push(generated.program);
  }
  return programs;
}

export async function generateStatefulTasks(options: StatefulGenerationOptions, sandbox: Sandbox): Promise<StatefulGenerationRun> {
  const definition = statefulScenarios[options.scenario];
  const knobs = programKnobs(options);
  const rng = new Rng(deriveSeed(options.seed, 'stateful', options.scenario));
  let book = new OccurrenceBook();
  const tasks: StatefulTaskData[] = [];
  const rejected: { index: number; reason: string }[] = [];
  for (let attempt = 0; tasks.length < options.count; attempt += 1) {
    if (attempt >= options.count * 3) {
      throw new ToolForgeError('suite.unsolvable-task', `stateful/${options.scenario}: only ${tasks.length} of ${options.count} programs passed their own test cases after ${attempt} attempts (first rejection: ${rejected[0]?.reason ?? 'none'})`, {
        fix: 'this is a generator bug: report it with the seed and scenario; meanwhile try another --seed',
      });
    }
    const generated = definition.generateProgram(knobs, rng.child('program', attempt), book);
    book = generated.book;
    const { program } = generated;
    const oracle = await buildOracle(program, { sandbox, createBackend: definition.createBackend }, definition.comparison);
    if (oracle.kind === 'rejected') {
      rejected.push({ index: attempt, reason: oracle.reason });
      continue;
    }
    const instruction = translateProgram(program);
    const referenceCode = composeProgram(renderInitBlock(program), program.body);
    const index = tasks.length;
    tasks.push({
      id: `stateful/${options.scenario}/${options.seed}/${index}`,
      scenario: options.scenario,
      index,
      program,
      referenceCode,
      testCases: oracle.testCases,
      instruction,
      preloaded: [...program.preamble.map((line) => line.match(/^let (\w+)/)?.[1] ?? ''), ...program.declarations.map((item) => item.name)].filter(Boolean),
      statistics: programStatistics(program, instruction, referenceCode),
    });
  }
  return { tasks, book: book.toJSON(), rejected };
}

/** The task prompt (reference 6.4's layout): documentation, instructions, preloaded names, what to write. */
export function statefulPrompt(task: Pick<StatefulTaskData, 'scenario' | 'instruction' | 'preloaded'>): string {
  return [
    'You are provided with API documentation and task-specific instructions. Based on this information, generate the corresponding code to fulfill the task requirements.',
    '',
    '===The documentation===:',
    statefulScenarios[task.scenario].documentation,
    '',
    '===The instructions===:',
    task.instruction,
    '',
    `Preloaded (do not redefine): ${task.preloaded.join(', ')}, RESULT.`,
    'Write JavaScript that runs as the body of an async function (top-level await works). The APIs above are preloaded globals; there is no network access except the documented service. Begin your answer with a ```javascript code block.',
  ].join('\n');
}
