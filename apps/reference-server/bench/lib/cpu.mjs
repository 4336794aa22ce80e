// CPU time of the processes a benchmark drives, read from /proc (Linux): a server's process group
// (each server is started in a group of its own: see servers.mjs), and a PostgreSQL cluster's
// postmaster with every process it forked. CPU time per request does not depend on how busy the
// machine is the way a rate does, so the benchmarks print it beside every rate. Elsewhere than
// Linux every reading is undefined and the figures are left out.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of utime/stime in /proc/PID/stat (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/** Whether /proc can be read here. */
export const cpuReadable = existsSync('/proc/self/stat');

/** The fields of /proc/PID/stat after the command name, or undefined once the process is gone. */
function statFields(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Every process id in /proc now. */
function processIds() {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/**
 * CPU time of one process so far, all its threads, in µs (utime + stime); with `reaped`, also that
 * of its children that have ended (cutime + cstime). 0 once it is gone.
 */
export function processCpuMicros(pid, { reaped = false } = {}) {
  const fields = statFields(pid);
  if (!fields) return 0;
  const ticks =
    Number(fields[11]) +
    Number(fields[12]) +
    (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
  return (ticks * 1e6) / ticksPerSecond;
}

/**
 * CPU time so far of every process in the process group `pgid` (a server started with
 * `detached: true` leads a group of its own, with whatever it started: npx and Prism's node), in
 * µs; undefined where /proc cannot be read.
 */
export function processGroupCpuMicros(pgid) {
  if (!cpuReadable) return undefined;
  let total = 0;
  for (const pid of processIds()) {
    const fields = statFields(pid);
    if (fields && Number(fields[2]) === pgid) total += processCpuMicros(pid);
  }
  return total;
}

/**
 * A reader of the CPU time of the PostgreSQL cluster listening on `port`: its postmaster (found by
 * its `-p <port>` argument) with the CPU of the backends it reaped, and every process it forked
 * that still runs, in µs. Undefined when no such postmaster is found.
 */
export function postgresCpuReader(port) {
  if (!cpuReadable) return undefined;
  const postmaster = processIds().find((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv[0]?.endsWith('/postgres') && argv.includes('-p') && argv.includes(String(port));
    } catch {
      return false;
    }
  });
  if (postmaster === undefined) return undefined;
  return () => {
    let total = processCpuMicros(postmaster, { reaped: true });
    for (const pid of processIds()) {
      if (Number(statFields(pid)?.[1]) === postmaster) total += processCpuMicros(pid);
    }
    return total;
  };
}
