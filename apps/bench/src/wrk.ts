import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { SCENARIOS, type Latency, type ScenarioKind } from './scenarios.js';
import { COUNT_PREFER } from './search-pages.js';
import { tagPagePrefix } from './tag-pages.js';

/**
 * wrk (C, LuaJIT) as the load generator where it is installed: on this 2-core machine one
 * autocannon process saturates its core below what the ceiling serves, which would understate the
 * ceiling and flatter every ratio. Requests are generated per request by the Lua script below, and
 * every status is counted in `response()`.
 */
export const wrkAvailable = (): boolean => {
  const probe = spawnSync('wrk', ['--version'], { stdio: 'ignore' });
  return probe.error === undefined;
};

// One script for every scenario; init(args) receives: token, kind, first id, seed range, keys,
// for list-tag the tag page's path up to its cursor and the largest cursor, and for pages and
// counted the file of request paths and the Prefer header.
// create-delete: a create's 201 (Location /plants/{id}) queues the id, and the next request
// deletes it, so deletes only name committed plants and creates and deletes alternate.
// patch: renames a seeded plant to "bench patch <n>", n counting up from the first id, so every
// PATCH changes its plant.
// create-batch: an array of 1000 plants (BATCH_PLANTS) with ids counting up, as batchBody writes it.
const SCRIPT = String.raw`
local threads = {}
function setup(thread) table.insert(threads, thread) end

function init(args)
  kind = args[2]
  nextId = tonumber(args[3])
  seedFrom = tonumber(args[4])
  seedTo = tonumber(args[5])
  keys = args[6]
  tagPrefix = args[7]
  lastCursor = tonumber(args[8])
  -- pages and counted: GET a path drawn from the scenario's pool (a file, one path a line)
  paths = {}
  if args[9] ~= nil and args[9] ~= "" then
    for line in io.lines(args[9]) do
      if line ~= "" then table.insert(paths, line) end
    end
  end
  -- the warm-up and the measured run draw different ids and cursors
  math.randomseed(nextId + os.time())
  counts = {}
  pending = {}
  auth = { ["Authorization"] = "Bearer " .. args[1] }
  json = { ["Authorization"] = "Bearer " .. args[1], ["Content-Type"] = "application/json" }
  patch = { ["Authorization"] = "Bearer " .. args[1], ["Content-Type"] = "application/merge-patch+json" }
  counted = { ["Authorization"] = "Bearer " .. args[1], ["Prefer"] = args[10] }
  listRequest = wrk.format("GET", "/plants?limit=100", auth)
end

function request()
  if kind == "list" then return listRequest end
  if kind == "pages" then return wrk.format("GET", paths[math.random(1, #paths)], auth) end
  if kind == "counted" then return wrk.format("GET", paths[math.random(1, #paths)], counted) end
  if kind == "list-tag" then return wrk.format("GET", tagPrefix .. math.random(0, lastCursor), auth) end
  if kind == "get" then return wrk.format("GET", "/plants/" .. math.random(seedFrom, seedTo), auth) end
  if kind == "patch" then
    local n = nextId
    nextId = nextId + 1
    local body = '{"name":"bench patch ' .. string.format("%d", n) .. '"}'
    return wrk.format("PATCH", "/plants/" .. math.random(seedFrom, seedTo), patch, body)
  end
  if kind == "create-batch" then
    local plants = {}
    for i = 0, 999 do
      local id = string.format("%d", nextId + i)
      plants[#plants + 1] = '{"id":' .. id .. ',"name":"bench plant ' .. id .. '","tag":"bench"}'
    end
    nextId = nextId + 1000
    return wrk.format("POST", "/plants/batch", json, "[" .. table.concat(plants, ",") .. "]")
  end
  if kind == "create-delete" and #pending > 0 then
    return wrk.format("DELETE", "/plants/" .. table.remove(pending), auth)
  end
  local id = nextId
  nextId = nextId + 1
  local body = '{"id":' .. string.format("%d", id) .. ',"name":"bench plant ' .. string.format("%d", id) .. '","tag":"bench"}'
  if keys == "ordered" then
    json["Idempotency-Key"] = "bench-" .. string.format("%d", id)
  elseif keys == "random" then
    -- a random prefix places the key anywhere in the index; the id keeps it unique across runs
    json["Idempotency-Key"] = string.format("%08x%08x-%d", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), id)
  end
  return wrk.format("POST", "/plants", json, body)
end

function response(status, headers, body)
  local key = tostring(status)
  counts[key] = (counts[key] or 0) + 1
  if kind == "create-delete" and status == 201 then
    for name, value in pairs(headers) do
      if string.lower(name) == "location" then
        table.insert(pending, string.match(value, "(%d+)$"))
      end
    end
  end
end

function done(summary, latency, requests)
  local merged = {}
  local last = 0
  for _, thread in ipairs(threads) do
    for key, n in pairs(thread:get("counts")) do merged[key] = (merged[key] or 0) + n end
    local t = thread:get("nextId")
    if t > last then last = t end
  end
  local parts = {}
  for key, n in pairs(merged) do table.insert(parts, string.format('"%s":%d', key, n)) end
  local e = summary.errors
  io.write(string.format(
    'WRKRESULT {"requests":%d,"durationUs":%d,"socketErrors":%d,"timeouts":%d,"p50":%f,"p90":%f,"p99":%f,"max":%f,"mean":%f,"nextId":%d,"counts":{%s}}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write, e.timeout,
    latency:percentile(50.0), latency:percentile(90.0), latency:percentile(99.0), latency.max, latency.mean,
    last, table.concat(parts, ",")))
end
`;

let scriptFile: string | undefined;
const script = (): string => {
  if (scriptFile === undefined) {
    const file = join(tmpdir(), `plant-bench-${process.pid}.lua`);
    writeFileSync(file, SCRIPT);
    process.once('exit', () => rmSync(file, { force: true }));
    scriptFile = file;
  }
  return scriptFile;
};

export interface WrkRun {
  readonly requests: number;
  readonly seconds: number;
  /** Milliseconds. */
  readonly latency: Latency;
  readonly statusCounts: Readonly<Record<string, number>>;
  readonly socketErrors: number;
  readonly timeouts: number;
  readonly nextId: number;
}

export interface WrkOptions {
  readonly kind: ScenarioKind;
  readonly url: string;
  readonly token: string;
  readonly connections: number;
  readonly seconds: number;
  readonly firstId: number;
  readonly seedFrom: number;
  readonly seedTo: number;
  /** For `list-tag`: the tag and the largest cursor drawn. */
  readonly tagPage: { readonly tag: string; readonly lastCursor: number } | null;
  /** For `pages` and `counted`: the file of request paths. */
  readonly paths: string | null;
  /** Every create with its own `Idempotency-Key`, ascending or random, or none. */
  readonly idempotencyKeys: 'none' | 'ordered' | 'random';
}

/** The line our Lua done() prints; latencies in microseconds. */
const WrkOutput = t.type(
  {
    requests: t.number,
    durationUs: t.number,
    socketErrors: t.number,
    timeouts: t.number,
    p50: t.number,
    p90: t.number,
    p99: t.number,
    max: t.number,
    mean: t.number,
    nextId: t.number,
    counts: t.record(t.string, t.number),
  },
  'WrkOutput',
);

/** One wrk run (one thread; the caller's CPU affinity is inherited). */
export const runWrk = (o: WrkOptions): Promise<WrkRun> =>
  new Promise((resolve, reject) => {
    const args = [
      '-t1',
      `-c${o.connections}`,
      `-d${o.seconds}s`,
      '--timeout',
      '10s',
      '-s',
      script(),
      o.url,
      '--',
      o.token,
      SCENARIOS[o.kind].requests,
      String(o.firstId),
      String(o.seedFrom),
      String(o.seedTo),
      o.idempotencyKeys,
      o.tagPage === null ? '' : tagPagePrefix(o.tagPage.tag),
      String(o.tagPage?.lastCursor ?? 0),
      o.paths ?? '',
      COUNT_PREFER,
    ];
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('WRKRESULT '));
      if (code !== 0 || line === undefined) return reject(new Error(`wrk exited with ${String(code)}:\n${out}`));
      const decoded = WrkOutput.decode(JSON.parse(line.slice('WRKRESULT '.length)));
      if (E.isLeft(decoded))
        return reject(new Error(`unreadable wrk result: ${PathReporter.report(decoded).join('; ')}`));
      const r = decoded.right;
      const us = (v: number): number => v / 1000;
      resolve({
        requests: r.requests,
        seconds: r.durationUs / 1e6,
        latency: { p50: us(r.p50), p90: us(r.p90), p99: us(r.p99), max: us(r.max), mean: us(r.mean) },
        statusCounts: r.counts,
        socketErrors: r.socketErrors,
        timeouts: r.timeouts,
        nextId: r.nextId,
      });
    });
  });
