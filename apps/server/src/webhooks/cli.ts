#!/usr/bin/env node
import { parseArgs } from 'node:util';
import * as E from 'fp-ts/lib/Either.js';
import { iso, printTable } from '../cli/output.js';
import { failOnLeft, Refused, runCli, UsageError, type CliContext } from '../cli/run-cli.js';
import type { Store } from '../ports/store.js';
import {
  EVENT_TYPES,
  isDeliveryStatus,
  isEventType,
  type DeliveryRecord,
  type EndpointRecord,
} from '../ports/webhook-store.js';
import { checkEndpointUrl, registerEndpoint } from './endpoints.js';
import { newWebhookSecret } from './signature.js';

const HELP = `plant-store-webhooks — manage the Plant Store's webhook endpoints (in the store DATABASE_URL names)

Usage:
  plant-store-webhooks add --url <url> [--event <type>]…
      Registers an endpoint (default: every event type, including types added later) and prints
      its signing secret alone on stdout (details on stderr). The secret is shown only now.
  plant-store-webhooks list [--json]
  plant-store-webhooks remove <endpoint-id>
      Removes the endpoint and every delivery of it (pending ones are dropped).
  plant-store-webhooks enable <endpoint-id>
      Enables an endpoint disabled by a 410 Gone.
  plant-store-webhooks rotate-secret <endpoint-id>
      Prints a new secret on stdout. For 24 h attempts carry signatures of both, the new one first.
  plant-store-webhooks deliveries [--endpoint <id>] [--status pending|delivered|failed] [--limit <n>] [--json]
      The latest deliveries, newest first (default limit 50).
  plant-store-webhooks replay <delivery-id> | --failed [--endpoint <id>]
      Makes a failed or delivered delivery pending again: same webhook-id and body, a fresh schedule.
  plant-store-webhooks --help

Event types: ${EVENT_TYPES.join(', ')}.
Environment: DATABASE_URL (default sqlite:./data/plant-store.db), WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE.
Running servers pick up every change within 5 s, without a restart.
Exit codes: 0 done, 1 failed or refused, 2 usage error.
From the repository root: pnpm webhooks <command> …
`;

interface Policy {
  readonly allowHttp: boolean;
  readonly allowPrivate: boolean;
}

/** WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE: which endpoint URLs are accepted. */
const policyOf = ({ webhooks }: CliContext['config']): Policy => ({
  allowHttp: webhooks.allowHttp,
  allowPrivate: webhooks.allowPrivate,
});

const noPositionals = (command: string, positionals: readonly string[]): void => {
  if (positionals.length > 0)
    throw new UsageError(`${command} takes no positional arguments, got ${positionals.join(' ')}`);
};

const oneId = (command: string, args: string[]): string => {
  const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
  const [id, ...rest] = positionals;
  if (id === undefined || rest.length > 0)
    throw new UsageError(`${command} takes exactly one argument: the endpoint id`);
  return id;
};

const add = async ({ store, args, config }: CliContext): Promise<void> => {
  const policy = policyOf(config);
  const { values, positionals } = parseArgs({
    args,
    options: { url: { type: 'string' }, event: { type: 'string', multiple: true } },
    strict: true,
    allowPositionals: true,
  });
  noPositionals('add', positionals);
  if (values.url === undefined) throw new UsageError('add needs --url <url>');
  const events = [...new Set(values.event ?? [])];
  const unknown = events.filter((e) => !isEventType(e));
  if (unknown.length > 0)
    throw new UsageError(`unknown event type ${unknown.join(', ')}; expected ${EVENT_TYPES.join(', ')}`);
  const registered = await registerEndpoint(
    store.webhooks,
    { url: values.url, events: events.length === 0 ? null : events.filter(isEventType) },
    policy,
  );
  if (E.isLeft(registered)) {
    // Not the URL itself: it may carry credentials, which are refused but must not be echoed.
    if (registered.left._tag === 'UrlRefused') throw new Refused(`refused the URL: ${registered.left.reason}`);
    throw new Error('could not store the endpoint', { cause: registered.left.cause });
  }
  const { endpoint, secret } = registered.right;
  process.stderr.write(
    `added endpoint ${endpoint.id} → ${endpoint.url} (${endpoint.events === null ? 'every event type' : endpoint.events.join(', ')}).\n` +
      'Its signing secret is printed below once; verify deliveries with it (docs/reference/webhooks.md).\n',
  );
  process.stdout.write(`${secret}\n`);
};

const endpointJson = (e: EndpointRecord) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  status: e.enabled ? 'enabled' : 'disabled',
  disabledReason: e.disabledReason,
  createdAt: e.createdAt.toISOString(),
  secretRotatedAt: e.rotatedAt?.toISOString() ?? null,
});

const list = async ({ store, args }: CliContext): Promise<void> => {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  noPositionals('list', positionals);
  const endpoints = failOnLeft(await store.webhooks.listEndpoints()(), 'list the endpoints');
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(endpoints.map(endpointJson), null, 2)}\n`);
    return;
  }
  if (endpoints.length === 0) {
    process.stdout.write('no endpoints\n');
    return;
  }
  printTable([
    ['ID', 'URL', 'EVENTS', 'STATUS', 'CREATED'],
    ...endpoints.map((e) => [
      e.id,
      e.url,
      e.events === null ? '*' : e.events.join(','),
      e.enabled ? 'enabled' : `disabled (${e.disabledReason ?? ''})`,
      iso(e.createdAt),
    ]),
  ]);
};

const deliveryJson = (d: DeliveryRecord) => ({
  id: d.id,
  eventId: d.eventId,
  eventType: d.eventType,
  endpointId: d.endpointId,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  createdAt: d.createdAt.toISOString(),
  endedAt: d.endedAt?.toISOString() ?? null,
});

const remove = async ({ store, args }: CliContext): Promise<void> => {
  const id = oneId('remove', args);
  if (!failOnLeft(await store.webhooks.removeEndpoint(id)(), 'remove the endpoint'))
    throw new Refused(`no endpoint ${id}`);
  process.stderr.write(`removed ${id} and its deliveries\n`);
};

const enable = async ({ store, args }: CliContext): Promise<void> => {
  const id = oneId('enable', args);
  if (!failOnLeft(await store.webhooks.enableEndpoint(id)(), 'enable the endpoint'))
    throw new Refused(`no endpoint ${id}`);
  process.stderr.write(`enabled ${id}\n`);
};

const rotateSecret = async ({ store, args }: CliContext): Promise<void> => {
  const id = oneId('rotate-secret', args);
  const secret = newWebhookSecret();
  if (!failOnLeft(await store.webhooks.rotateSecret(id, secret)(), 'rotate the secret'))
    throw new Refused(`no endpoint ${id}`);
  process.stderr.write(
    `rotated the secret of ${id}; for 24 h attempts are signed with the new secret (first) and the previous one\n`,
  );
  process.stdout.write(`${secret}\n`);
};

const deliveries = async ({ store, args }: CliContext): Promise<void> => {
  const { values, positionals } = parseArgs({
    args,
    options: {
      endpoint: { type: 'string' },
      status: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: true,
  });
  noPositionals('deliveries', positionals);
  const { status, endpoint } = values;
  if (status !== undefined && !isDeliveryStatus(status))
    throw new UsageError(`--status expects pending, delivered or failed, got ${status}`);
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000)
    throw new UsageError(`--limit expects an integer from 1 to 10000, got ${values.limit}`);
  const found = failOnLeft(
    await store.webhooks.listDeliveries({
      limit,
      ...(endpoint === undefined ? {} : { endpointId: endpoint }),
      ...(status === undefined ? {} : { status }),
    })(),
    'list the deliveries',
  );
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(found.map(deliveryJson), null, 2)}\n`);
    return;
  }
  if (found.length === 0) {
    process.stdout.write('no deliveries\n');
    return;
  }
  printTable([
    ['ID', 'EVENT', 'TYPE', 'ENDPOINT', 'STATUS', 'ATTEMPTS', 'LAST', 'NEXT ATTEMPT', 'CREATED'],
    ...found.map((d) => [
      String(d.id),
      d.eventId,
      d.eventType,
      d.endpointId,
      d.status,
      String(d.attempts),
      d.lastError ?? (d.lastStatus === null ? '-' : String(d.lastStatus)),
      iso(d.nextAttemptAt),
      iso(d.createdAt),
    ]),
  ]);
};

/** The endpoint's URL must still pass the checks a registration would (the address may have moved). */
const checkStillAllowed = async (store: Store, endpointId: string, policy: Policy): Promise<void> => {
  const endpoints = failOnLeft(await store.webhooks.listEndpoints()(), 'list the endpoints');
  const endpoint = endpoints.find((e) => e.id === endpointId);
  if (endpoint === undefined)
    throw new Refused(`no endpoint ${endpointId} (removed endpoints take their deliveries with them)`);
  const checked = await checkEndpointUrl(endpoint.url, policy);
  if (E.isLeft(checked))
    throw new Refused(`refused: endpoint ${endpointId}'s URL is not allowed now: ${checked.left.reason}`);
};

const replay = async ({ store, args, config }: CliContext): Promise<void> => {
  const policy = policyOf(config);
  const { values, positionals } = parseArgs({
    args,
    options: { failed: { type: 'boolean' }, endpoint: { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  if (values.failed === true) {
    noPositionals('replay --failed', positionals);
    if (values.endpoint !== undefined) await checkStillAllowed(store, values.endpoint, policy);
    const count = failOnLeft(await store.webhooks.replayFailed(values.endpoint)(), 'replay the failed deliveries');
    process.stderr.write(
      `replaying ${count} failed ${count === 1 ? 'delivery' : 'deliveries'}${values.endpoint === undefined ? '' : ` of ${values.endpoint}`}\n`,
    );
    return;
  }
  if (values.endpoint !== undefined) throw new UsageError('--endpoint goes with --failed');
  const [raw, ...rest] = positionals;
  const id = Number(raw);
  if (raw === undefined || rest.length > 0 || !/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(id)) {
    throw new UsageError('replay takes one delivery id (a positive integer, see `deliveries`) or --failed');
  }
  const [delivery] = failOnLeft(
    await store.webhooks.listDeliveries({ deliveryId: id, limit: 1 })(),
    'find the delivery',
  );
  if (delivery === undefined)
    throw new Refused(
      `no delivery ${id} (removed endpoints take their deliveries with them; ended ones are kept WEBHOOK_RETENTION_DAYS)`,
    );
  if (delivery.status !== 'pending') await checkStillAllowed(store, delivery.endpointId, policy);
  const outcome = failOnLeft(await store.webhooks.replay(id)(), 'replay the delivery');
  switch (outcome._tag) {
    case 'Replayed':
      process.stderr.write(`delivery ${id} (${delivery.eventId}) is pending again\n`);
      return;
    case 'AlreadyPending':
      process.stderr.write(`delivery ${id} is already pending; nothing to do\n`);
      return;
    case 'DeliveryNotFound':
      throw new Refused(`no delivery ${id}`);
    case 'EndpointDisabled':
      throw new Refused(
        `refused: endpoint ${outcome.endpointId} is disabled; enable it first (plant-store-webhooks enable ${outcome.endpointId})`,
      );
  }
};

await runCli({
  name: 'plant-store-webhooks',
  help: HELP,
  commands: { add, list, remove, enable, 'rotate-secret': rotateSecret, deliveries, replay },
});
