/**
 * A throwaway PostgreSQL server for tests: initdb into a temporary folder and start it on a free
 * 127.0.0.1 port, from the Debian package's binaries (.ci/run installs them). PostgreSQL refuses to run
 * as root, so as root the server runs as the 'postgres' system user. Tests that need it skip with the
 * reason when no binaries are installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';

export type PostgresServer = {
  url: string; port: number; stop(): Promise<void>; kill(): void;
  /** Starts the server again on the same data and port, after kill() (a crash) or with it still running (a stop first). */
  restart(): Promise<void>;
  /** The server's log so far (what a failing test prints: a crashed backend, a restart). */
  log(): string;
};

/** The folder holding initdb and postgres, or undefined with the reason. */
export function findPostgresBinaries(): { directory: string } | { missing: string } {
  const candidates = [process.env.TOOLFORGE_PG_BIN, ...(existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort().reverse().map((version) => `/usr/lib/postgresql/${version}/bin`) : [])];
  for (const directory of candidates) {
    if (directory && existsSync(join(directory, 'initdb')) && existsSync(join(directory, 'postgres'))) return { directory };
  }
  return { missing: 'no PostgreSQL server binaries (install Debian\'s postgresql package, or set TOOLFORGE_PG_BIN to the folder with initdb and postgres)' };
}

function systemUser(name: string): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const found = findPostgresBinaries();
  if ('missing' in found) throw new Error(found.missing);
  const runAs = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
  if (process.getuid?.() === 0 && !runAs) throw new Error('running as root with no postgres system user to run the server as');
  const root = mkdtempSync(join(tmpdir(), 'toolforge-pg-'));
  const dataDirectory = join(root, 'data');
  if (runAs) {
    chmodSync(root, 0o755);
    chownSync(root, runAs.uid, runAs.gid);
  }
  const asUser = runAs ? { uid: runAs.uid, gid: runAs.gid } : {};
  const init = spawnSync(join(found.directory, 'initdb'), ['-D', dataDirectory, '-U', 'toolforge', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    ...asUser, encoding: 'utf8', cwd: root,
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  let log = '';
  const launch = async (): Promise<{ server: ChildProcess; exited: Promise<void> }> => {
    const server: ChildProcess = spawn(join(found.directory, 'postgres'), [
      // No fsync (a test server outlives no power cut), but commits reach the WAL before they return: a backend that
      // crashes and restarts loses nothing a test already saw committed.
      '-D', dataDirectory, '-p', String(port), '-h', '127.0.0.1', '-k', root, '-c', 'fsync=off', '-c', 'synchronous_commit=on',
      '-c', 'full_page_writes=off', '-c', 'max_connections=50',
    ], { ...asUser, cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    const from = log.length;
    server.stderr?.on('data', (chunk: Buffer) => { log += chunk.toString(); });
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start within 30 s:\n${log}`)), 30_000);
      const check = (): void => {
        if (/ready to accept connections/.test(log.slice(from))) {
          clearTimeout(timer);
          resolve();
        } else if (server.exitCode !== null || server.signalCode !== null) {
          clearTimeout(timer);
          reject(new Error(`PostgreSQL exited at start:\n${log}`));
        } else setTimeout(check, 50);
      };
      check();
    });
    return { server, exited };
  };
  let running = await launch();
  const cleanUp = (): void => rmSync(root, { recursive: true, force: true });
  const ended = (): boolean => running.server.exitCode !== null || running.server.signalCode !== null;
  return {
    url: `postgres://toolforge@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      if (!ended()) running.server.kill('SIGINT');
      await running.exited;
      cleanUp();
    },
    kill() {
      running.server.kill('SIGKILL');
    },
    async restart() {
      if (!ended()) running.server.kill('SIGINT');
      await running.exited;
      // A killed postmaster's backends see it gone and exit; the new one recovers from the WAL.
      running = await launch();
    },
    log: () => log,
  };
}

/**
 * A describe block whose tests share one throwaway server, started before them and stopped after; skipped with the
 * reason when no server binaries are installed. `body` gets the server as it will be once started (its fields are read
 * when a test uses them).
 */
export function describeWithPostgres(name: string, body: (server: PostgresServer) => void): void {
  const binaries = findPostgresBinaries();
  describe(name, { skip: 'missing' in binaries ? binaries.missing : false }, () => {
    let started: PostgresServer | undefined;
    before(async () => {
      started = await startPostgresServer();
    });
    after(async () => {
      await started?.stop();
    });
    const server = (): PostgresServer => {
      if (started === undefined) throw new Error('the PostgreSQL server is not started yet (use it inside a test)');
      return started;
    };
    body({
      get url() { return server().url; },
      get port() { return server().port; },
      stop: () => server().stop(),
      kill: () => server().kill(),
      restart: () => server().restart(),
      log: () => server().log(),
    });
  });
}
