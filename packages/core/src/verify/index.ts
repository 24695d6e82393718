export * from './backup-check.js';
export * from './verify-session.js';
