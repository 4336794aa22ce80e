/**
 * A server that breaks the contract, for the tests that must see a tool fail on it (Respect's
 * journeys, the Postman collection run by Newman): a proxy in front of a reference server.
 */
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy in front of the reference server that answers every update in the create's shape
 * (snake_case account keys, `userImage`, `documents`, no `monthlyIncome`): the mistake a server
 * makes when it reuses the create's serializer.
 */
export async function startUpdateAsCreateProxy(target: string) {
  const proxy = createServer((incoming, outgoing) => {
    const forward = request(
      new URL(incoming.url ?? '/', target),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(chunks);
          if (incoming.method === 'PUT' && answer.statusCode === 200) {
            body = Buffer.from(JSON.stringify(asCreateShape(JSON.parse(body.toString()))));
          }
          outgoing.writeHead(answer.statusCode ?? 502, {
            ...answer.headers,
            'content-length': String(body.length),
          });
          outgoing.end(body);
        });
      },
    );
    incoming.pipe(forward);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () => {
      proxy.closeAllConnections();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

function asCreateShape(user: Record<string, unknown>): Record<string, unknown> {
  const { image, monthlyIncome: _income, account, ...rest } = user;
  const a = account as Record<string, unknown> | null;
  return {
    ...rest,
    userImage: image,
    documents: [],
    account: a && {
      id: a.id,
      account_type: a.accountType,
      account_number: a.accountNumber,
      network: a.network,
      bank_name: a.bankName ?? null,
      account_name: a.accountName,
      created_at: a.createdAt,
    },
  };
}
