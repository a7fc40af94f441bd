import { createHash, type Hash } from 'node:crypto';

/**
 * A table's row count and SHA-256 over its rows in key order, each as JSON with its members in
 * name order: equal for equal content whichever store the rows were read from.
 */
export class TableDigest {
  private readonly hash: Hash = createHash('sha256');
  rows = 0;

  add(rows: readonly object[]): void {
    for (const row of rows) {
      this.hash.update(JSON.stringify(row, Object.keys(row).sort()));
      this.hash.update('\n');
    }
    this.rows += rows.length;
  }

  /** The digest, hex; the object cannot take rows after. */
  hex(): string {
    return this.hash.digest('hex');
  }
}
