import cliProgress from 'cli-progress';
import type { RunProgressEvent, RunProgressListener } from '../runner/run-progress.ts';
import type { CliIo } from './cli-io.ts';

/**
 * A progress bar on stderr when stderr is a terminal; off a terminal nothing but retry notices,
 * so logs and `--json` stdout stay clean.
 */
export function createProgressDisplay(io: CliIo): { listener: RunProgressListener; stop(): void } {
  if (!io.isStderrTty) {
    return {
      listener: (event) => {
        if (event.type === 'episode-retry') io.stderr(`${retryLine(event)}\n`);
        if (event.type === 'warning') io.stderr(`warning: ${event.message}\n`);
      },
      stop: () => {},
    };
  }
  const bars = new cliProgress.MultiBar({
    stream: process.stderr,
    format: 'episodes {bar} {value}/{total} | passed {passed} | {duration_formatted}',
    barsize: 30,
    hideCursor: true,
    clearOnComplete: false,
  }, cliProgress.Presets.shades_classic);
  let bar: cliProgress.SingleBar | undefined;
  let passed = 0;
  let isStopped = false;
  const stop = (): void => {
    if (isStopped) return;
    isStopped = true;
    bars.stop();
    // The bar's line ends in a carriage return: move off it so what follows does not overwrite it.
    if (bar) process.stderr.write('\n');
  };
  return {
    listener: (event) => {
      switch (event.type) {
        case 'run-start':
          bar = bars.create(event.plannedEpisodes, 0, { runId: event.runId, passed });
          break;
        case 'run-planned':
          bar?.setTotal(event.plannedEpisodes);
          break;
        case 'episode-retry':
          bars.log(`${retryLine(event)}\n`);
          break;
        case 'warning':
          bars.log(`warning: ${event.message}\n`);
          break;
        case 'episode-end':
          if (event.passed) passed += 1;
          bar?.update(event.completedEpisodes, { passed });
          break;
        case 'run-end':
          stop();
          break;
      }
    },
    stop,
  };
}

function retryLine(event: Extract<RunProgressEvent, { type: 'episode-retry' }>): string {
  return `retrying ${event.taskId} trial ${event.trial} in ${Math.round(event.delayMs / 1000)} s (attempt ${event.failedAttempt} failed: ${event.error})`;
}
