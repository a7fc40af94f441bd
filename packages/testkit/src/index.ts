export {
  type Attributes,
  type ReceivedSpan,
  type SpanEvent,
  type SpanKindName,
  type SpanLink,
  type SpanStatus,
  type StatusCodeName,
} from './otlp-model.js';
export {
  startOtlpReceiver,
  type OtlpBehaviour,
  type OtlpReceiver,
  type OtlpReceiverOptions,
  type ReceivedRequest,
  type WaitForSpansOptions,
} from './otlp-receiver.js';
export { arbitraryOf, plantIdArbitrary, textArbitrary } from './plant-arbitrary.js';
export { pgbouncerMissing, startPooler, type Pooler, type PoolerRestart, type PoolerSettings } from './pgbouncer.js';
export {
  describePostgres,
  freshPostgresDatabase,
  freshPostgresUrl,
  openAdminSql,
  pgTestUrl,
  postgresAvailable,
  type FreshPostgres,
  type FreshPostgresDatabase,
} from './postgres.js';
export {
  addressInUse,
  freePort,
  rssBytes,
  runNode,
  startOnFreePort,
  startServer,
  tempDir,
  type RunResult,
  type ServerProcess,
  type StartServerOptions,
} from './processes.js';
export { describeUnlessMissing, inCi, skipOrFail } from './skip.js';
export { spanTree } from './span-tree.js';
export { until, type UntilOptions } from './until.js';
