import http from 'node:http';
import type { StoredPlant } from './store.js';

/** A change as the log sends it, with its exact text (`data`). */
export interface LoggedChange {
  readonly seq: number;
  readonly type: 'plant.created' | 'plant.updated' | 'plant.deleted';
  readonly data: { readonly id: number; readonly name?: string; readonly tag?: string };
  readonly text: string;
}

const parse = (text: string): LoggedChange => ({ ...(JSON.parse(text) as Omit<LoggedChange, 'text'>), text });

/**
 * A watcher of GET /plants/changes on one server, as a client holds one: a stream from `since`,
 * every change it reads kept with its exact text. When the server ends or cuts the stream it opens
 * another from the last number read (`Last-Event-ID`), until `stop`.
 */
export class ChangeWatch {
  readonly seen = new Map<number, string>();
  /** The last number read. */
  position: number;
  /** Streams opened again after one ended. */
  resumes = 0;
  /** Numbers that came again, or out of order (none may). */
  readonly repeats: number[] = [];
  /** Every number read, in the order read (a change read twice is here twice). */
  readonly order: number[] = [];
  /**
   * Every stream that was not opened: its answer's status when it was not 200, `'no connection'`
   * when the connection failed, and whether `serverDown` had been called by then. The watcher opens
   * another stream 200 ms later, so an answer that keeps failing is here again and again.
   */
  readonly failures: { readonly answer: number | 'no connection'; readonly down: boolean }[] = [];
  private request: http.ClientRequest | undefined;
  private stopped = false;
  private down = false;

  constructor(since: number) {
    this.position = since;
  }

  /** Follows `port` from the last number read; resolves once the first stream is answered (or failed). */
  follow(port: number, token: string): Promise<void> {
    return new Promise((resolve) => this.open(port, token, resolve));
  }

  /** From now on the server is known to be down (killed, restarting): its refusals are expected. */
  serverDown(): void {
    this.down = true;
  }

  stop(): void {
    this.stopped = true;
    this.request?.destroy();
  }

  private open(port: number, token: string, opened: () => void): void {
    if (this.stopped) return opened();
    let again = true;
    let answered = false;
    const resume = (): void => {
      if (!again || this.stopped) return;
      again = false;
      this.resumes += 1;
      setTimeout(() => this.open(port, token, () => undefined), 200).unref();
    };
    const request = http.get(
      {
        host: '127.0.0.1',
        port,
        path: '/plants/changes',
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'text/event-stream',
          'last-event-id': String(this.position),
        },
      },
      (response) => {
        answered = true;
        opened();
        response.on('close', resume);
        response.on('error', () => undefined);
        if (response.statusCode !== 200) {
          this.failures.push({ answer: response.statusCode ?? 0, down: this.down });
          return void response.resume();
        }
        let buffered = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffered += chunk;
          let end: number;
          while ((end = buffered.indexOf('\n\n')) !== -1) {
            const block = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            const data = block.split('\n').find((line) => line.startsWith('data: '));
            if (data === undefined) continue;
            const change = parse(data.slice(6));
            if (change.seq <= this.position) this.repeats.push(change.seq);
            this.order.push(change.seq);
            this.seen.set(change.seq, change.text);
            this.position = change.seq;
          }
        });
      },
    );
    request.on('error', () => {
      // an error after the answer came (the server died mid-stream) is the stream's end, not a refusal
      if (!answered) this.failures.push({ answer: 'no connection', down: this.down });
      opened();
      resume();
    });
    this.request = request;
  }
}

/** The whole change log, from its first kept number, in JSON pages as the Link leads. */
export const readLog = async (baseUrl: string, token: string): Promise<LoggedChange[]> => {
  const changes: LoggedChange[] = [];
  let path: string | undefined = '/plants/changes?since=0&limit=1000';
  for (let pages = 0; path !== undefined; pages++) {
    if (pages > 10_000) throw new Error('too many pages of changes');
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) throw new Error(`GET ${path} → ${response.status} ${await response.text()}`);
    const text = await response.text();
    const page = JSON.parse(text) as unknown[];
    for (const change of page) changes.push(parse(JSON.stringify(change)));
    path = page.length === 0 ? undefined : /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return changes;
};

/**
 * What is wrong with the numbering of a change log read whole: numbers not 1, 2, 3… in order, or a
 * change a watcher read that the log now holds with other bytes (a number given twice).
 */
export const logNumbering = (
  log: readonly LoggedChange[],
  watched: readonly ReadonlyMap<number, string>[],
): string[] => {
  const problems: string[] = [];
  log.forEach((change, i) => {
    if (change.seq !== i + 1) problems.push(`change ${i + 1} of the log is numbered ${change.seq}`);
  });
  const bySeq = new Map(log.map((c) => [c.seq, c.text]));
  for (const seen of watched)
    for (const [seq, text] of seen)
      if (bySeq.get(seq) !== text)
        problems.push(`a watcher read change ${seq} as ${text}; the log now holds ${bySeq.get(seq)}`);
  return problems.slice(0, 20);
};

/**
 * What is wrong with the delivery of a change log read whole to watchers that followed it one
 * after another, each resuming where the one before stopped (`order`: every number they read, in
 * the order read): a change of the log no watcher read (a gap), one read twice, one read after a
 * later one, one the log does not hold.
 */
export const deliveryProblems = (log: readonly LoggedChange[], order: readonly number[]): string[] => {
  const problems: string[] = [];
  const times = new Map<number, number>();
  for (const seq of order) times.set(seq, (times.get(seq) ?? 0) + 1);
  const logged = new Set(log.map((c) => c.seq));
  for (const { seq } of log) {
    const n = times.get(seq) ?? 0;
    if (n === 0) problems.push(`change ${seq} of the log never reached a watcher`);
    else if (n > 1) problems.push(`change ${seq} reached the watchers ${n} times`);
  }
  for (const seq of times.keys())
    if (!logged.has(seq)) problems.push(`the watchers read change ${seq}, which the log does not hold`);
  order.forEach((seq, i) => {
    const before = order[i - 1];
    if (before !== undefined && seq <= before) problems.push(`change ${seq} was read after change ${before}`);
  });
  return problems.slice(0, 20);
};

/**
 * What is wrong with a change log read whole, against the store it belongs to: its numbering
 * (logNumbering), and a replay of the changes that does not give the store's plants exactly (a
 * change committed without its entry, or an entry without its change).
 */
export const logProblems = (
  log: readonly LoggedChange[],
  plants: ReadonlyMap<number, StoredPlant>,
  watched: readonly ReadonlyMap<number, string>[],
): string[] => {
  const problems = logNumbering(log, watched);
  const replayed = new Map<number, StoredPlant>();
  for (const { seq, type, data } of log) {
    if (type === 'plant.deleted') {
      if (!replayed.delete(data.id))
        problems.push(`change ${seq} deletes plant ${data.id}, which the log never created`);
    } else {
      if ((type === 'plant.created') === replayed.has(data.id))
        problems.push(
          `change ${seq} is a ${type} of plant ${data.id}, which the log ${type === 'plant.created' ? 'already holds' : 'does not hold'}`,
        );
      replayed.set(data.id, { id: data.id, name: data.name as string, tag: data.tag });
    }
  }
  for (const [id, plant] of plants) {
    const got = replayed.get(id);
    if (got === undefined) problems.push(`plant ${id} is in the store; replaying the log does not give it`);
    else if (got.name !== plant.name || got.tag !== plant.tag)
      problems.push(`plant ${id} is ${JSON.stringify(plant)} in the store, ${JSON.stringify(got)} by the log`);
  }
  for (const id of replayed.keys())
    if (!plants.has(id)) problems.push(`replaying the log gives plant ${id}, which the store does not hold`);
  return problems.slice(0, 20);
};
