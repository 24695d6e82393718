/**
 * Run one of `fixtures/*.ts` in a child Node process through tsx, with `@fh/core` resolved to its
 * sources (fixtures/tsconfig.json). The child is a separate "machine" for the tests: its own
 * process, its own client, its own memory figures.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const FIXTURES = new URL('./fixtures/', import.meta.url);
/** tsx's loader as a file URL, so `--import` finds it whatever the child's current folder. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Run `fixtures/<script>` with `args` in `cwd` (default: this process's) and return its stdout. */
export function runFixture(script: string, args: readonly string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', TSX_LOADER, fileURLToPath(new URL(script, FIXTURES)), ...args],
      {
        cwd,
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          TSX_TSCONFIG_PATH: fileURLToPath(new URL('tsconfig.json', FIXTURES)),
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          FH_DISABLE_FILE_CHECKPOINTING: '',
        },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${script} failed: ${error.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}
