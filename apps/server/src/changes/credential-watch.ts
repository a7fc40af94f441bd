import * as E from 'fp-ts/lib/Either.js';
import type { Authenticator } from '../tokens/principal.js';

/**
 * Ends what a token holds open once the token is no longer good (revoked, or a JWT past its
 * `exp`): every `everyMs` each distinct token held by a stream is checked again, through the
 * same authenticator as a request (so with its token cache: PG_TOKEN_CACHE_MS on PostgreSQL). A
 * check that cannot be made (the store is down) ends nothing.
 */
export class CredentialWatch {
  private readonly held = new Map<string, Set<() => void>>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(
    private readonly auth: Authenticator,
    private readonly everyMs = 2000,
  ) {}

  /** Calls `onInvalid` once `token` is no longer good; the returned function stops watching. */
  watch(token: string, onInvalid: () => void): () => void {
    let ends = this.held.get(token);
    if (ends === undefined) this.held.set(token, (ends = new Set()));
    ends.add(onInvalid);
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.check(), this.everyMs);
      this.timer.unref();
    }
    return () => {
      ends.delete(onInvalid);
      if (ends.size === 0 && this.held.get(token) === ends) this.held.delete(token);
      if (this.held.size === 0) this.stop();
    };
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      for (const [token, ends] of [...this.held]) {
        const found = await this.auth.authenticate(token)();
        if (E.isLeft(found) && found.left._tag === 'InvalidToken') for (const end of [...ends]) end();
      }
    } finally {
      this.checking = false;
    }
  }
}
