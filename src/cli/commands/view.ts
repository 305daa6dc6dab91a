import type { Command } from 'commander';
import { onStopSignal } from '../stop-signals.ts';
import { ConfigError } from '../../core/errors.ts';
import { startReportServer } from '../../report/report-server.ts';
import type { CliIo } from '../cli-io.ts';
import { openExistingStore } from '../open-store.ts';
import { parsePort, resolveDatabasePath } from '../option-parsers.ts';

export function registerViewCommand(program: Command, io: CliIo): void {
  program
    .command('view')
    .description('serve the HTML report on 127.0.0.1, rebuilt on every request (runs in progress included); Ctrl-C stops it')
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 4173)
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .action(async (options: { port: number; db?: string }) => {
      const dbPath = resolveDatabasePath(options.db, io.cwd);
      openExistingStore(dbPath).close();
      let server;
      try {
        server = await startReportServer({ dbPath, port: options.port });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new ConfigError('config.invalid', `port ${options.port} is already in use`, { fix: 'pass --port <another port>, or --port 0 for any free one' });
        }
        throw error;
      }
      io.stderr(`serving ${dbPath} at ${server.url} (Ctrl-C to stop)\n`);
      await new Promise<void>((resolve) => onStopSignal(resolve));
      await server.close();
    });
}
