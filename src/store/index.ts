export * from './results-store.ts';
export * from './stored-run.ts';
export * from './run-id.ts';
export * from './run-jsonl.ts';
export * from './record-schemas.ts';
export * from './store-migrations.ts';
