import type { Mode } from '../core/mode.ts';
import type { Agent } from './spec.ts';
import { createCodeAgent } from './code.ts';
import { createReactAgent } from './react.ts';
import { createSingleTurnAgent } from './single-turn.ts';
import { createToolLoopAgent } from './tool-loop.ts';

/** The agent the runner uses for a mode when a suite brings none of its own. */
export function createGenericAgent(mode: Mode): Agent {
  switch (mode) {
    case 'calls':
      return createToolLoopAgent();
    case 'react':
      return createReactAgent();
    case 'sequence':
      return createSingleTurnAgent(mode);
    case 'code':
      return createCodeAgent();
  }
}
