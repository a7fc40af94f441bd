#!/usr/bin/env node
// The `plant-store` bin: wires runCli to the process. All logic lives in run-cli.ts (tested).
import process from 'node:process';
import { runCli } from './run-cli.js';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
// A reader that stops early (`plant-store export | head`) closes the pipe: the output ends there,
// quietly, as with other Unix tools, instead of an unhandled EPIPE and its stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
});
