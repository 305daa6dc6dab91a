/** The toolbench suite (StableToolBench solvable queries) and its building blocks. */
export { toolbenchSuite } from './toolbench-suite.ts';
export { importSolvableQueries, queryGroups, solvableQueriesPath } from './stabletoolbench-data.ts';
export type { StableApi, StableQuery, QueryGroup } from './stabletoolbench-data.ts';
export { judgeAnswer, solvablePassRate, parseAnswerStatus } from './solvable-pass-rate.ts';
export type { AnswerStatus, Judge, FinalStep } from './solvable-pass-rate.ts';
export { summarizeToolbench, passRatesPerJudgeRun } from './toolbench-summary.ts';
