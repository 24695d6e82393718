export * from './agents.js';
export * from './agent-changes.js';
export * from './transcript-edits.js';
