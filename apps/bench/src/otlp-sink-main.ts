import { listenUntilOrphaned } from './bounded-child.js';
import { createOtlpSink } from './otlp-sink.js';

/**
 * Entry of the OTLP sink process (`node dist/otlp-sink-main.js`), started by the bench for each
 * traced row, so that receiving the exports costs the server's core nothing; it ends as
 * src/bounded-child.ts says.
 */
listenUntilOrphaned(createOtlpSink().server, 'otlp sink');
