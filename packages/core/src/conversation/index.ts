export * from './messages.js';
export * from './prompt.js';
export * from './selectable.js';
export * from './rewind-conversation.js';
export * from './compact.js';
export * from './chain.js';
export * from './fork-records.js';
export * from './turn-reply.js';
