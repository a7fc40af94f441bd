/** A start-up step that failed: `message` is the fatal line, `cause` what went wrong. */
export class StartFailed extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
    readonly fields: object = {},
  ) {
    super(message);
  }
}

/** Runs one start-up step; its failure becomes the fatal line `what` (a StartFailed). */
export const step = async <T>(what: string, run: () => Promise<T>, fields: object = {}): Promise<T> => {
  try {
    return await run();
  } catch (err) {
    throw new StartFailed(what, err, fields);
  }
};
