/**
 * The contract between the command window (`begin-command.ts`, `end-command.ts`) and the thing
 * that lists a project: a git repository read through the real `git` binary, or a walk of a
 * folder with `.gitignore`-style rules. The core does no I/O of its own; `@fh/command-probe`
 * implements this interface for Node (`NodeCommandProbe`), and tests may inject another.
 *
 * A probe answers two questions, once before a command and once after it:
 * - which files fh must hold the before-bytes of itself ({@link ProbeListing.own}): in a git
 *   repository the dirty and untracked files (git holds the bytes of every clean file already),
 *   outside one every file the walk reaches;
 * - which ignored paths exist ({@link ProbeListing.ignored}), so a command that touches one is
 *   reported rather than silently missed.
 * In a git repository it also saves the index as it was before the command (the command may run
 * `git checkout`, `git stash`, `git reset --hard`, `git commit`) and, after the command, names
 * the files whose working-tree bytes or mode differ from that saved index, with the index entry
 * that holds their before-bytes ({@link ProbeEnd.indexChanged}); {@link CommandProbe.materializeBlobs}
 * then writes those blobs out for the store to copy. A probe never writes into the user's `.git`.
 */
import type { EntryFacts } from './facts.js';

/** A JSON value: what a probe may keep between `begin` and `end` (it is saved with the window). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** What a probe lists at one moment. Keys are tracking paths (relative to the project root, `/`). */
export interface ProbeListing {
  /**
   * Files whose before-bytes fh must keep itself, with their facts now: git's dirty and untracked
   * files (regular files and symlinks), or every file a walk reaches. Never an ignored path.
   */
  own: Map<string, EntryFacts>;
  /**
   * Ignored paths that exist now, with their facts: files, and folders ignored as a whole (their
   * key ends with `/`; a file added or removed directly inside changes the folder's facts).
   */
  ignored: Map<string, EntryFacts>;
}

/** {@link CommandProbe.begin}'s answer. */
export interface ProbeBegin extends ProbeListing {
  /** `git`: the project lies in a git work tree; `walk`: it does not. */
  kind: 'git' | 'walk';
  /** The probe's own state (for example where it saved the index), given back to `end`, `materializeBlobs` and `release`. */
  state: JsonValue;
}

/** An entry of the index saved at `begin`: where git holds a file's before-bytes. */
export interface IndexEntry {
  /** The blob's object id (hex). */
  blobId: string;
  /** Git's mode: `0o100644`, `0o100755`, `0o120000` (symlink) or `0o160000` (submodule). */
  gitMode: number;
  /**
   * The file's permission bits (`& 0o7777`) at `begin`, when the probe saw them: the blob is
   * restored with them. Absent: only git's executable bit is known.
   */
  mode?: number;
  /** False when the probe knows the bytes still equal the blob (only the mode changed). */
  contentChanged?: boolean;
}

/** {@link CommandProbe.end}'s answer. */
export interface ProbeEnd extends ProbeListing {
  /**
   * Git only (empty for a walk): every path whose working-tree file (bytes, executable bit or
   * presence) differs now from the index saved at `begin`, with that index entry. A file dirty at
   * `begin` is listed again when it is still dirty; the window tells them apart.
   */
  indexChanged: Map<string, IndexEntry>;
}

/** A blob written out by {@link CommandProbe.materializeBlobs}. */
export interface MaterializedBlob {
  /** Absolute path of a new regular file holding the blob's bytes, with the requested permission bits. */
  path: string;
  /** Its size in bytes. */
  size: number;
}

/** What {@link CommandProbe.materializeBlobs} is asked to write. */
export interface BlobRequest {
  blobId: string;
  /** Permission bits (`0o7777` mask) the file gets. */
  mode: number;
}

/** The `code` of a probe's error when a listing passed the probe's size or time limits. */
export const SCAN_LIMIT_CODE = 'FH_SCAN_LIMIT';

/** Lists a project before and after a command; see the top of this file. */
export interface CommandProbe {
  /**
   * Before the command: list the project (and, in git, save the index). `windowId` is a single
   * path segment naming this window, for any files the probe keeps. Throws when the project
   * cannot be listed (for example `git` fails); nothing is left behind then.
   */
  begin(projectRoot: string, windowId: string): Promise<ProbeBegin>;
  /**
   * After the command: list the project again, against what `begin` saved (see {@link ProbeEnd}).
   * A probe whose listing passed its limits (the command made the project too large to list in
   * time) throws an error whose `code` is {@link SCAN_LIMIT_CODE}: `endCommand` then closes the
   * window, capturing nothing, and says why (`CommandCapture.scanLimit`), instead of leaving a
   * window no later event could end.
   */
  end(projectRoot: string, windowId: string, state: JsonValue): Promise<ProbeEnd>;
  /**
   * Write each requested blob to its own new file (git only; a walk never asks). Returns one entry
   * per request, in order; `maxBytes` (per blob): a larger blob gets `undefined` and is not written.
   * Throws when git cannot read a blob. The caller removes the files with `release`.
   */
  materializeBlobs(projectRoot: string, windowId: string, state: JsonValue, requests: readonly BlobRequest[], maxBytes: number): Promise<Array<MaterializedBlob | undefined>>;
  /**
   * Optional: the requested blobs' bytes, without writing them to files (git only): `onBlob` is
   * called once per request (not necessarily in request order: `index` names it), with the blob's
   * bytes (`undefined` for one over `maxBytes`, per blob), and awaited before the next, so the
   * caller bounds what it holds. Throws when git
   * cannot read a blob. `endCommand` uses it with a store's `putBackups` to write each
   * before-image once, straight into the store; without either it uses {@link materializeBlobs}.
   */
  readBlobBytes?(projectRoot: string, windowId: string, state: JsonValue, requests: readonly BlobRequest[], maxBytes: number, onBlob: (index: number, bytes: Uint8Array | undefined) => Promise<void>): Promise<void>;
  /**
   * Remove everything the probe keeps for this window (the saved index, written blobs).
   * Idempotent; a window never begun is not an error.
   */
  release(projectRoot: string, windowId: string, state: JsonValue): Promise<void>;
  /**
   * The permission bits a file checked out from git with `gitMode` has here (the process umask
   * applied), used when a file's own bits are no longer known (it was deleted).
   */
  checkoutMode(gitMode: number): number;
}
