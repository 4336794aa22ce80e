// The thread of refusal-load.ts's startFlood: sends one request again and again over a number of
// connections until told to stop (the second cell of `answered`), counting the answers (the first
// cell) and their statuses, which it posts back at the end. Plain JavaScript: a worker runs as
// Node loads it, without the tests' TypeScript transform.
import { parentPort, workerData } from 'node:worker_threads';

const { baseUrl, request, connections, maxRequests, answered } = workerData;
const statuses = {};
const stopped = () => Atomics.load(answered, 1) === 1 || Atomics.load(answered, 0) >= maxRequests;

async function connection() {
  while (!stopped()) {
    try {
      const response = await fetch(`${baseUrl}${request.path}`, request);
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    } catch (error) {
      const name = error.cause?.code ?? error.name;
      statuses[name] = (statuses[name] ?? 0) + 1;
    }
    Atomics.add(answered, 0, 1);
  }
}

await Promise.all(Array.from({ length: connections }, connection));
parentPort.postMessage(statuses);
