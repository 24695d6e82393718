/**
 * `fh hook install --store <uri>`: the hook command it writes names the store absolutely, so every
 * hook finds the same store whatever folder the agent runs it in.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, runCli, sandbox, writeFiles, type CliResult, type Sandbox } from './helpers.js';

/** Run a hook command line as Claude Code does: through the shell, in `cwd`, the event on stdin. */
function runHookCommand(box: Sandbox, command: string, cwd: string, event: object): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env: { ...baseEnvironment(box.home), CLAUDE_PROJECT_DIR: box.project }, stdio: 'pipe' });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ exitCode: code ?? -1, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }));
    child.stdin.end(JSON.stringify(event));
  });
}

describe('fh hook install --store', () => {
  it('writes a relative store folder as an absolute fs: location, resolved against the folder install ran in', async () => {
    const box = await sandbox();
    const install = await runCli(['--store', 'fhstore', '--json', 'hook', 'install'], { home: box.home, cwd: box.project });
    expect(install.exitCode).toBe(0);
    const command = `${process.execPath} ${cliPath} --store fs:${join(box.project, 'fhstore')} hook`;
    expect(JSON.parse(install.stdout)).toMatchObject({ command });
    const settings = JSON.parse(await readFile(join(box.project, '.claude', 'settings.json'), 'utf8'));
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toBe(command);
    expect(settings.hooks.UserPromptSubmit[0].hooks[0].command).toBe(command);

    await mkdir(join(box.project, 'sub'));
    await writeFiles(box.project, { 'a.txt': 'a as it was\n' });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    const base = { session_id: 'rel', transcript_path: join(box.home, 'rel.jsonl'), permission_mode: 'default' };
    expect(await runHookCommand(box, command, box.project, { ...base, cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: 'edit a' })).toEqual(quiet);
    const edit = { ...base, cwd: join(box.project, 'sub'), hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(box.project, 'a.txt'), old_string: 'a', new_string: 'b' } };
    expect(await runHookCommand(box, command, join(box.project, 'sub'), edit)).toEqual(quiet);

    expect(await readdir(join(box.project, 'sub'))).toEqual([]);
    await writeFiles(box.project, { 'a.txt': 'b as it was\n' });
    const diff = await runCli(['--store', join(box.project, 'fhstore'), '--session', 'rel', '--json', 'list'], { home: box.home, cwd: box.project });
    expect(diff.exitCode).toBe(0);
    expect(JSON.parse(diff.stdout).checkpoints.map((checkpoint: { filesChanged: string[] }) => checkpoint.filesChanged)).toEqual([['a.txt']]);
  });

  it('resolves fs:<relative folder> and ~ too, and keeps an s3:// store as it was given', async () => {
    const box = await sandbox();
    const print = async (store: string) => {
      const result = await runCli(['--store', store, '--json', 'hook', 'install', '--print'], { home: box.home, cwd: box.project });
      expect(result.exitCode).toBe(0);
      return JSON.parse(result.stdout).hooks.UserPromptSubmit[0].hooks[0].command as string;
    };
    const program = `${process.execPath} ${cliPath}`;
    expect(await print('fs:../stores/fh')).toBe(`${program} --store fs:${join(box.project, '..', 'stores', 'fh')} hook`);
    expect(await print('~/fh-store')).toBe(`${program} --store fs:${join(box.home, 'fh-store')} hook`);
    expect(await print('s3://my-bucket/team/fh/')).toBe(`${program} --store s3://my-bucket/team/fh/ hook`);
  });

  it('refuses a store it cannot parse (exit 2) and writes nothing', async () => {
    const box = await sandbox();
    const install = await runCli(['--store', 'gs://bucket', 'hook', 'install'], { home: box.home, cwd: box.project });
    expect(install).toEqual({ exitCode: 2, stdout: '', stderr: 'fh: unknown store "gs://bucket": use fs:<folder> or s3://<bucket>/<prefix>\n' });
    expect(await readdir(box.project)).toEqual([]);
  });
});
