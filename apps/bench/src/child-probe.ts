import { writeFileSync } from 'node:fs';

/**
 * Loaded into each process the data bench starts (`node --import <this> …`), before the program:
 *
 * - at exit, writes the process's peak resident set (getrusage's maxrss, what the kernel kept:
 *   every page ever resident at once, however briefly) to CHILD_PROBE_RSS_FILE, since a parent
 *   cannot read /proc of a process that has exited and Node does not hand out a child's rusage;
 * - stops the process (SIGTERM, which the server answers with its graceful shutdown) after
 *   CHILD_PROBE_LIFETIME_SECONDS, and within a second of the bench going away, so that nothing
 *   the bench started outlives it.
 *
 * It arms unref'd timers only: the program exits when it would have.
 */
const rssFile = process.env['CHILD_PROBE_RSS_FILE'];
if (rssFile !== undefined && rssFile !== '') {
  process.on('exit', () => {
    // maxRSS is in kilobytes.
    writeFileSync(rssFile, `${process.resourceUsage().maxRSS * 1024}\n`);
  });
}

const lifetime = Number(process.env['CHILD_PROBE_LIFETIME_SECONDS'] ?? '');
if (Number.isInteger(lifetime) && lifetime > 0) {
  setTimeout(() => {
    process.stderr.write(`child probe: stopping after its lifetime of ${lifetime} s\n`);
    process.kill(process.pid, 'SIGTERM');
  }, lifetime * 1000).unref();
}

const parent = process.ppid;
setInterval(() => {
  // Re-parented: the bench is gone.
  if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
}, 1000).unref();
