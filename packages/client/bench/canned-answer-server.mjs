/**
 * A server that answers every request with the spec's `UserCreatedNew` example as a `201`, once
 * the request's body is in: the far end of `client-overhead.mjs`'s end-to-end group, in a process
 * of its own so the bench's CPU clock counts the client only. Sends its port to the parent (IPC).
 */
import { createServer } from 'node:http';
import { openapiDocument } from '@institution-api/types';

const answer = JSON.stringify(openapiDocument.components.examples.UserCreatedNew.value);
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(201, { 'Content-Type': 'application/json' });
    response.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => process.send?.(server.address().port));
process.on('disconnect', () => server.close(() => process.exit(0)));
