/** The records core: date buckets, summaries, the range cache and its disk store. No `vscode`. */
export * from './buckets';
export * from './summary';
export * from './summaryText';
export * from './recordStore';
export * from './diskCache';
export * from './category';
