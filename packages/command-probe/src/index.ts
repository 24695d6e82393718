export { NodeCommandProbe, walkProject, type NodeCommandProbeOptions } from './node-command-probe.js';
export { FsCommandJournal } from './fs-command-journal.js';
export { parseStatus, type StatusEntry } from './git.js';
