/** One schema change of the PostgreSQL store: migrations/index.ts lists them in order. */
export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  /** One or more statements, run in the migrating transaction. */
  readonly sql: string;
}
