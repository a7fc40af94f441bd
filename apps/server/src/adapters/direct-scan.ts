/**
 * How many plants, in the page's order, a `q` page examines directly before it turns to the
 * plants that match (the search index): fifty per plant of the page, at least 1,000, at most
 * 50,000. A `q` that one plant in fifty matches fills its page within them, at a cost that does
 * not grow with the store. A rarer one goes to the index, where reading its matches costs little
 * because they are few; the index alone would not do for a common one, because SQLite's FTS5
 * reads a term's list of plants from its start to reach a page's starting place and PostgreSQL's
 * matches would all be read and sorted (see docs/explanation/storage.md).
 */
export const directScanRows = (limit: number): number => Math.min(50_000, Math.max(1_000, 50 * limit));
