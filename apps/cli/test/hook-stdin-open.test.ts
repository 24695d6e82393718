import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, tempFolder } from './helpers.js';

/** The start of an event whose end never comes: the agent keeps stdin open and says no more. */
const PARTIAL = '{"session_id":"5d0c6a52-1c1e-4c36-9d55-3b0f5b7b1e01","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"half';
const BUDGET_MS = 800;
const GAVE_UP = 'fh hook: gave up after 0.8 s (FH_HOOK_TIMEOUT_MS); this event was not recorded\n';

/** Collect `child`'s stderr until it closes (or, for the shell, until it names the hook's exit), and the ms that took. */
function watch(child: ChildProcess, until?: RegExp): Promise<{ stderr: string; exitCode: number | null; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    let stderr = '';
    const finish = (exitCode: number | null) => resolve({ stderr, exitCode, ms: Date.now() - started });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = until === undefined ? null : until.exec(stderr);
      if (match !== null) finish(Number(match[1]));
    });
    if (until === undefined) child.on('close', finish);
  });
}

async function environment(): Promise<Record<string, string>> {
  return { ...baseEnvironment(await tempFolder()), FH_HOOK_TIMEOUT_MS: String(BUDGET_MS) };
}

// Before, the hook read a pipe or socket with a blocking read on a libuv thread, and its give-up
// exit waited for that read: for as long as the agent kept stdin open. Each case here keeps it
// open for 30 s; the hook must be gone soon after its 0.8 s budget.
describe('fh hook gives up and exits while the agent keeps stdin open and silent', () => {
  it('on a socket (what Node-based agents pass: spawn with a pipe)', { timeout: 20_000 }, async () => {
    const child = spawn(process.execPath, [cliPath, 'hook'], { env: await environment(), stdio: ['pipe', 'ignore', 'pipe'] });
    child.stdin?.write(PARTIAL);
    const result = await watch(child);
    child.stdin?.destroy();
    expect({ exitCode: result.exitCode, stderr: result.stderr }).toEqual({ exitCode: 0, stderr: GAVE_UP });
    expect(result.ms).toBeLessThan(BUDGET_MS + 8000);
  });

  it('on a pipe (a shell pipeline whose writer stays)', { timeout: 20_000 }, async () => {
    const shell = spawn('sh', ['-c', `{ printf '%s' "$PARTIAL"; sleep 30; } | { "${process.execPath}" "${cliPath}" hook; echo "hook exited $?" >&2; }`], {
      env: { ...(await environment()), PARTIAL },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    try {
      const result = await watch(shell, /hook exited (\d+)\n/);
      expect({ exitCode: result.exitCode, stderr: result.stderr }).toEqual({ exitCode: 0, stderr: `${GAVE_UP}hook exited 0\n` });
      expect(result.ms).toBeLessThan(BUDGET_MS + 8000);
    } finally {
      process.kill(-(shell.pid as number), 'SIGKILL');
    }
  });

  it('on a FIFO held open by its writer', { timeout: 20_000 }, async () => {
    const fifo = join(await tempFolder(), 'event.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const descriptor = openSync(fifo, 'r+');
    try {
      expect(fstatSync(descriptor).isFIFO()).toBe(true);
      writeSync(descriptor, PARTIAL);
      const child = spawn(process.execPath, [cliPath, 'hook'], { env: await environment(), stdio: [descriptor, 'ignore', 'pipe'] });
      const result = await watch(child);
      expect({ exitCode: result.exitCode, stderr: result.stderr }).toEqual({ exitCode: 0, stderr: GAVE_UP });
      expect(result.ms).toBeLessThan(BUDGET_MS + 8000);
    } finally {
      closeSync(descriptor);
    }
  });
});
