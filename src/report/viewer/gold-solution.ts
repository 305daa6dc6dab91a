import type { JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { Task } from '../../core/task.ts';
import { escapeHtml } from '../render-html.ts';

/**
 * A task's hidden ground truth, shown generically so a new suite needs no viewer code: well-known
 * fields get a heading (gold calls, the expected request, a reference program or solution order),
 * and the whole `expected` stays available below them.
 */
const namedFields: readonly { keys: readonly string[]; title: string }[] = [
  { keys: ['calls', 'goldCalls', 'outputJson'], title: 'Gold calls' },
  { keys: ['solution'], title: 'Gold solution (call order)' },
  { keys: ['target'], title: 'Target' },
  { keys: ['request', 'config'], title: 'Expected request' },
  { keys: ['program', 'reference', 'code'], title: 'Reference program' },
  { keys: ['answer', 'goldAnswerJson', 'finalState'], title: 'Gold answer' },
];

export function renderGoldSolution(task: Task): string {
  const expected = task.expected;
  const parts: string[] = ['<div class="panel gold"><h3>Gold (task.expected)</h3>'];
  if (isJsonObject(expected)) {
    for (const field of namedFields) {
      for (const key of field.keys) {
        if (!(key in expected) || expected[key] === null) continue;
        parts.push(`<h4>${escapeHtml(field.title)} <small>(${escapeHtml(key)})</small></h4><pre>${escapeHtml(prettyValue(expected[key] as JsonValue))}</pre>`);
      }
    }
  }
  parts.push(`<details><summary>everything in expected</summary><pre>${escapeHtml(prettyValue(expected as JsonValue))}</pre></details>`, '</div>');
  return parts.join('\n');
}

/** JSON held as a string (nestful keeps its gold calls as JSON text) is shown parsed when it parses. */
export function prettyValue(value: JsonValue | undefined): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? '';
}
