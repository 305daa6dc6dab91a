/**
 * Ctrl-C (SIGINT) and a service manager's stop (SIGTERM: `docker stop`, systemd, Kubernetes, `kill`) stop a command
 * the same way: the first is handled (a run stops cleanly, its finished episodes kept and resumable, the server
 * closes); a second of either ends the process at once, Node's default, which is restored by the first.
 */
export const stopSignals = ['SIGINT', 'SIGTERM'] as const;

/** Calls `stop` on the first stop signal; returns the function that stops listening (call it when the command ends). */
export function onStopSignal(stop: () => void): () => void {
  const handler = (): void => {
    removeHandlers();
    stop();
  };
  const removeHandlers = (): void => {
    for (const signal of stopSignals) process.removeListener(signal, handler);
  };
  for (const signal of stopSignals) process.on(signal, handler);
  return removeHandlers;
}

/**
 * A command stopped by a stop signal before it finished (an output file not written, say): main prints
 * `interrupted: <message>` and exits 130. The message says what was kept and what to do.
 */
export class Interrupted extends Error {}
