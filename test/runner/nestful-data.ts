import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSample } from '../../src/suites/nestful/generate-samples.ts';

/** `count` generated NESTFUL samples as a JSONL data file, and a replay file answering each with its gold (minus `unanswered`). */
export function writeNestfulData(directory: string, count: number, unanswered: readonly number[] = []): { data: string; replay: string } {
  const samples: string[] = [];
  const outputs: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const { sample } = generateSample(7, index, { calls: 3, depth: 2, fanin: 2, distractors: 2 });
    samples.push(`{"sample_id": "s-${index}", "input": ${JSON.stringify(sample.input)}, "output": ${sample.outputJson}, "tools": ${JSON.stringify(sample.tools)}, "gold_answer": ${sample.goldAnswerJson}}`);
    if (!unanswered.includes(index)) outputs.push(JSON.stringify({ taskId: `nestful/s-${index}`, output: sample.outputJson }));
  }
  const data = join(directory, `samples-${count}-${unanswered.length}.jsonl`);
  const replay = join(directory, `outputs-${count}-${unanswered.length}.jsonl`);
  writeFileSync(data, `${samples.join('\n')}\n`);
  writeFileSync(replay, `${outputs.join('\n')}\n`);
  return { data, replay };
}
