export * from './facts.js';
export * from './command-probe.js';
export * from './command-journal.js';
export * from './command-limits.js';
export { beginCommand, type BeginCommandOptions, type CommandWindow } from './begin-command.js';
export { endCommand, endOpenCommands, compareWindows, type EndCommandOptions, type EndOpenCommandsOptions, type CommandCapture, type CommandChange, type PreImageSource } from './end-command.js';
