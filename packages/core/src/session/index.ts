export * from './undo-records.js';
export * from './undo.js';
export * from './rewind-preview.js';
export * from './restore-options.js';
export * from './fork-session.js';
export * from './rewind-session.js';
export * from './message-reference.js';
