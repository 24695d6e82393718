/**
 * Summarize from the CLI (seed 000 §2 summarize / summarize_up_to): the summarize command gets the
 * conversation on stdin, its stdout becomes the summary, and the result is a new session; a failing
 * command changes nothing.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox, writeFiles, type Sandbox } from './helpers.js';

async function threePrompts(): Promise<Sandbox> {
  const box = await sandbox();
  await writeFiles(box.project, { 'a.txt': 'one\n' });
  for (const [id, prompt] of [['p1', 'first prompt'], ['p2', 'second prompt'], ['p3', 'third prompt']] as const) {
    expect((await box.fh(['--session', 's', 'snapshot', id, '--prompt', prompt])).exitCode).toBe(0);
    if (id === 'p1') expect((await box.fh(['--session', 's', 'track', 'a.txt'])).exitCode).toBe(0);
  }
  return box;
}

const records = async (box: Sandbox, session: string) =>
  (await readFile(join(box.store, 'sessions', `${session}.jsonl`), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

describe('fh rewind --mode summarize', () => {
  it('writes a new session whose messages from the prompt on are one summary made by the command', async () => {
    const box = await threePrompts();
    const input = join(box.home, 'stdin.txt');
    const command = `cat > ${input}; echo 'They asked for two things.'`;
    const { result, json } = await box.fhJson<{ summary: { sessionId: string; summarizedMessageIds: string[]; text: string; checkpoints: number } }>([
      '--session', 's', 'rewind', 'p2', '--mode', 'summarize', '--summarize-command', command, '--yes',
    ]);
    expect(result.exitCode).toBe(0);
    expect(json.summary).toMatchObject({ summarizedMessageIds: ['p2', 'p3'], text: 'They asked for two things.', checkpoints: 1 });
    expect(await readFile(input, 'utf8')).toBe('User: second prompt\n\nUser: third prompt\n');
    const forked = (await records(box, json.summary.sessionId)).filter((record) => record.type === 'user');
    expect(forked.map((record) => [record.uuid, record.isCompactSummary ?? false, (record.message as { content: string }).content])).toEqual([
      ['p1', false, 'first prompt'],
      [expect.any(String), true, 'They asked for two things.'],
    ]);
    expect((await records(box, 's')).filter((record) => record.type === 'user')).toHaveLength(3);
  });

  it('summarize_up_to replaces the messages before the prompt, from FH_SUMMARIZE_COMMAND', async () => {
    const box = await threePrompts();
    const result = await box.fh(['--session', 's', 'rewind', 'p3', '--mode', 'summarize_up_to', '--yes'], { env: { FH_SUMMARIZE_COMMAND: 'cat >/dev/null; echo earlier work' } });
    expect(result.exitCode).toBe(0);
    const id = /into new session (\S+) /.exec(result.stdout)?.[1] as string;
    expect(result.stdout).toContain('Summarized 2 messages before this prompt (p3) into new session');
    const users = (await records(box, id)).filter((record) => record.type === 'user');
    expect(users.map((record) => (record.message as { content: string }).content)).toEqual(['earlier work', 'third prompt']);
  });

  it('a failing command changes nothing and says why; without a command the mode is a usage error', async () => {
    const box = await threePrompts();
    const before = await readdir(join(box.store, 'sessions'));
    const failed = await box.fh(['--session', 's', 'rewind', 'p2', '--mode', 'summarize', '--summarize-command', 'echo model unavailable >&2; exit 3', '--yes']);
    expect(failed).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'fh: the summarize command "echo model unavailable >&2; exit 3" exited with 3: model unavailable; nothing was changed (no session was written). Fix the command, or choose another option\n',
    });
    expect(await readdir(join(box.store, 'sessions'))).toEqual(before);
    const missing = await box.fh(['--session', 's', 'rewind', 'p2', '--mode', 'summarize', '--yes']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--mode summarize needs a summarize command');
  });
});
