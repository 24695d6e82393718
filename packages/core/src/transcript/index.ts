export * from './base-folders.js';
export * from './outside-files.js';
export * from './chain-records.js';
