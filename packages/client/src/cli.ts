#!/usr/bin/env node
// The `plant-store` bin: wires runCli to the process. All logic lives in run-cli.ts (tested).
import process from 'node:process';
import { endQuietlyOnEpipe } from './quiet-epipe.js';
import { runCli } from './run-cli.js';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
endQuietlyOnEpipe(
  process.stdout,
  (code) => process.exit(code),
  () => process.exitCode,
);

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
});
