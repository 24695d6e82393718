/**
 * Error text without fh's internals (issue 15): the stores open their messages with what they
 * were doing in their own terms (`restoreBackup "0cd3…@v1" of session "p1" to
 * "/proc/self/fd/19/.b.txt.fh-982194cb1bbc.tmp"`, `back up "/p/b.txt" as "…@undo-…"`). A person
 * needs the file and what went wrong, not backup-object or temp-file names: {@link plainError}
 * rewrites those openings, and any temp-file or `/proc/self/fd/N` path left, unless `--verbose`.
 */

/** errno words (as `translateFsError` appends them) → what they mean for a person. */
const REASONS: ReadonlyArray<[RegExp, string]> = [
  [/\bEACCES \(permission denied\)|\bEPERM \(permission denied\)/, 'permission denied'],
  [/\bEROFS \(permission denied\)/, 'the file system is read-only'],
  [/\bENOSPC\b/, 'no space left on the device'],
  [/\bEDQUOT\b/, 'the disk quota is used up'],
];

/** The reason at the end of a store message, in plain words (the errno part replaced). */
function reason(rest: string): string {
  for (const [pattern, words] of REASONS) if (pattern.test(rest)) return words;
  return rest;
}

/** Node's own error text: `EACCES: permission denied, open '/p/a.txt'` (the description, the system call, the path). */
const NODE_ERROR = /\bE[A-Z0-9]+: ([a-z][^,]*), ([a-z]+) '([^']*)'(?: -> '[^']*')?/g;

/** The system calls that read (the rest write). */
const READ_CALLS: ReadonlySet<string> = new Set(['open', 'read', 'stat', 'lstat', 'fstat', 'scandir', 'opendir', 'readlink', 'access', 'realpath']);

/** A path as the store wrote it, without the temp-file wrapping (`/proc/self/fd/19/.b.txt.fh-….tmp` → `b.txt`). */
function plainPath(path: string): string {
  const temp = /(?:^|\/)\.([^/]+)\.fh-[0-9a-f]+\.tmp$/.exec(path);
  if (temp !== null) return temp[1] as string;
  return path.replace(/^\/proc\/self\/fd\/\d+\//, '');
}

/** Errno codes of a backup that failed on the store's side (its disk full or read-only), not the file's. */
const STORE_SIDE_ERRORS: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

/**
 * `text` with the stores' internal openings rewritten (see the module comment):
 * - `restoreBackup "<backup>" of session "<s>" to "<temp>": <errno>` → `cannot write the file: <reason>` (`cannot write <options.path>: …` when given: for a JSON document, whose entries carry no path before the text) (for a permission error: the folder must be writable, as fh writes a temp file there and renames it over the file);
 * - `back up "<path>" as "<backup>" (session "<s>"): <errno>` → `cannot read <path> to back it up: <reason>`
 *   (`cannot back <path> up: the store cannot be written: <reason>` for a full or read-only store: {@link STORE_SIDE_ERRORS});
 * - Node's own `EACCES: permission denied, open '/p/a.txt'` → `cannot read /p/a.txt: permission denied` (`it` for the file `options.path`);
 * - `sessionId must be …` / `messageId must be …` (the stores' argument names) → `the session id must be …`;
 * - any other temp-file path → the file's name; `/proc/self/fd/N/` → dropped.
 */
export function plainError(text: string, options: { path?: string } = {}): string {
  return text
    .replace(/restoreBackup "[^"]*" (?:of session "[^"]*" )?to "([^"]*)": ([A-Z][A-Z0-9]+(?: \([^)]*\))?)/g, (_match, destination: string, rest: string) => {
      const words = reason(rest);
      const folderHint = words === 'permission denied' ? ' (fh writes a temp file in its folder and renames it over the file, so the folder must be writable)' : '';
      const file = !destination.includes('.fh-') ? plainPath(destination) : options.path;
      return `cannot write ${file === undefined ? 'the file' : file}: ${words}${folderHint}`;
    })
    .replace(/back up "([^"]*)" as "[^"]*" \(session "[^"]*"\): ([A-Z][A-Z0-9]+(?: \([^)]*\))?)/g, (_match, source: string, rest: string) =>
      STORE_SIDE_ERRORS.has(rest.split(' ')[0] ?? '') ? `cannot back ${source} up: the store cannot be written: ${reason(rest)}` : `cannot read ${source} to back it up: ${reason(rest)}`,
    )
    .replace(NODE_ERROR, (_match, description: string, syscall: string, target: string) => {
      const same = options.path !== undefined && (target === options.path || target.endsWith(`/${options.path}`));
      return `cannot ${READ_CALLS.has(syscall) ? 'read' : 'write'} ${same ? 'it' : plainPath(target)}: ${description}`;
    })
    .replace(/^(sessionId|messageId) must be /, (_match, name: string) => `the ${name === 'sessionId' ? 'session' : 'message'} id must be `)
    .replace(/\/proc\/self\/fd\/\d+\/(\.[^/\s"']+\.fh-[0-9a-f]+\.tmp)/g, (_match, temp: string) => plainPath(temp))
    .replace(/(?<=[\s"'(])\/proc\/self\/fd\/\d+\//g, '');
}
