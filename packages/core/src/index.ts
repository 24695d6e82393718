export * from './errors.js';
export * from './types.js';
export * from './store.js';
export * from './records.js';
export * from './results.js';
export * from './jsonl.js';
export * from './conversation/index.js';
