// @ts-check
// The thread of refusal-load.ts's startFlood: sends one request again and again over a number of
// connections, counting the answers (control[0]) and their statuses, which it posts back at the
// end; control[1] is the command: 0 run, 1 stop, 2 pause (the requests in flight finish, then it
// looks again every 5 ms). Plain JavaScript: a worker runs as Node loads it, without the tests' TypeScript
// transform.
import { parentPort, workerData } from 'node:worker_threads';

/**
 * What refusal-load.ts gives the thread.
 *
 * @type {{
 *   baseUrl: string;
 *   request: RequestInit & { path: string };
 *   connections: number;
 *   maxRequests: number;
 *   control: Int32Array;
 * }}
 */
const { baseUrl, request, connections, maxRequests, control } = workerData;
/** Answers by status (or by the error's code), posted back at the end. @type {Record<string, number>} */
const statuses = {};
const [answered, command] = [0, 1];
const [stop, pause] = [1, 2];
const stopped = () =>
  Atomics.load(control, command) === stop || Atomics.load(control, answered) >= maxRequests;

async function connection() {
  while (!stopped()) {
    if (Atomics.load(control, command) === pause) {
      // A timer, not Atomics.waitAsync: the worker's event loop must stay alive while it waits.
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    try {
      const response = await fetch(`${baseUrl}${request.path}`, request);
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    } catch (caught) {
      const error = /** @type {Error & { cause?: { code?: string } }} */ (caught);
      const name = error.cause?.code ?? error.name;
      statuses[name] = (statuses[name] ?? 0) + 1;
    }
    Atomics.add(control, answered, 1);
  }
}

await Promise.all(Array.from({ length: connections }, connection));
parentPort?.postMessage(statuses);
