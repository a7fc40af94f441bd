/**
 * One schema change of the SQLite store (migrations/index.ts lists them in order). Versions only
 * grow; an applied migration is never edited, only followed.
 */
export interface SqliteMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}
