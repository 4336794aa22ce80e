/**
 * `institution-api mcp` as an agent uses it: the MCP SDK's own `Client` (v2), on protocol
 * 2026-07-28 and on 2025-11-25, over stdio (spawning the built CLI, as an MCP client's
 * configuration does) and over Streamable HTTP (`mcp --http`, with its bearer token), against
 * the reference server with a key pair that requires message signatures, so every success proves
 * the server signed both ways. Each runs the same calls: create (201), create again (200),
 * update, an invalid body (refused before anything is sent) and an unknown id (the service's
 * 404), a bad argument, and a resource read; everything the server sent and logged is checked
 * for the secret and the token.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  type ListeningProcess,
  startListeningProcess,
} from '@institution-api/test-support/listening-process';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { distinctUserBody } from '@institution-api/test-support/user-bodies';
import { openapiDocument } from '@institution-api/types';
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));
const token = 'tok_agent_calls_0123456789abcdef';

const credential = {
  institution: 'Agent Savings Group',
  publicKey: 'pk_mcp_agent_test',
  secretKey: 'sk_mcp_agent_never_shown_0123456789',
  messageSignature: 'required' as const,
};

let service: RunningServer;
beforeAll(async () => {
  service = await startReferenceServer({ credentials: [credential] });
});
afterAll(() => service?.stop());

/** The keys and the service, as an MCP client's configuration gives them in `env`. */
function environment(): Record<string, string> {
  return {
    INSTITUTION_API_URL: service.url,
    INSTITUTION_PUBLIC_KEY: credential.publicKey,
    INSTITUTION_SECRET_KEY: credential.secretKey,
  };
}

/** An SDK client connected to the MCP server one way, with what the server emitted. */
interface Connected {
  client: Client;
  /** The server's log (stderr; over HTTP, its stdout too). */
  log(): string;
  close(): Promise<void>;
}

/** How the client negotiates: the 2025 handshake, or 2026-07-28 and nothing else. */
type Mode = 'legacy' | { pin: '2026-07-28' };

const transports: Record<string, (mode: Mode) => Promise<Connected>> = {
  async stdio(mode) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp'],
      env: environment(),
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    const client = new Client(
      { name: 'agent-calls-test', version: '1.0.0' },
      { versionNegotiation: { mode } },
    );
    await client.connect(transport);
    return { client, log: () => log, close: () => client.close() };
  },
  async http(mode) {
    const server: ListeningProcess = await startListeningProcess([bin, 'mcp', '--http'], {
      PATH: process.env.PATH,
      ...environment(),
      INSTITUTION_MCP_TOKEN: token,
    });
    const client = new Client(
      { name: 'agent-calls-test', version: '1.0.0' },
      { versionNegotiation: { mode } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return {
      client,
      log: server.output,
      close: async () => {
        await client.close();
        await server.stop();
      },
    };
  },
};

const cases = Object.keys(transports).flatMap((transport) =>
  (
    [
      ['2025-11-25', 'legacy'],
      ['2026-07-28', { pin: '2026-07-28' }],
    ] as const
  ).map(([revision, mode]) => ({ transport, revision, mode: mode as Mode })),
);

/** What a tool call answers when it succeeds. */
interface Answered {
  status: number;
  message: string;
  user: { id: string } & Record<string, unknown>;
}

/** The problem a tool error carries, as JSON after its sentence. */
function problemOf(result: CallToolResult): { status: number; errors?: { path: string }[] } {
  const text = result.content[1];
  if (text?.type !== 'text') throw new Error('the tool error carries no details');
  return JSON.parse(text.text).problem;
}

describe.each(cases)('over $transport, protocol $revision', ({ transport, revision, mode }) => {
  let connected: Connected;
  /** Everything the server answered, as JSON. */
  const answered: string[] = [];
  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = (await connected.client.callTool({
      name: tool,
      arguments: args,
    })) as CallToolResult;
    answered.push(JSON.stringify(result));
    return result;
  };

  beforeAll(async () => {
    connected = await (transports[transport] as (mode: Mode) => Promise<Connected>)(mode);
    expect(connected.client.getProtocolEra()).toBe(revision === '2026-07-28' ? 'modern' : 'legacy');
  });
  afterAll(async () => {
    await connected?.close();
  });

  const body = distinctUserBody();
  let id = '';

  it('lists createUser and updateUser, each with the spec input fields', async () => {
    const { tools } = await connected.client.listTools();
    answered.push(JSON.stringify(tools));
    expect(tools.map((tool) => tool.name)).toEqual(['createUser', 'updateUser']);
    const fields = Object.keys(
      (openapiDocument.components.schemas as Record<string, { properties: object }>).UserInput
        ?.properties ?? {},
    );
    for (const tool of tools) {
      expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(fields),
      );
    }
  });

  it('creates a user: 201, the user as structured content and as text', async () => {
    const result = await call('createUser', body);
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as unknown as Answered;
    expect(structured.status).toBe(201);
    expect(structured.user).toMatchObject({
      email: body.email,
      ghanaCardNumber: body.ghanaCardNumber,
      monthlyIncome: null, // the create answer does not carry it
      account: { accountType: 'MOMO' },
    });
    expect(result.content[0]).toEqual({ type: 'text', text: JSON.stringify(structured, null, 2) });
    id = structured.user.id;
  });

  it('creates it again: 200, the same user', async () => {
    const result = await call('createUser', { ...body, firstName: 'Another' });
    const structured = result.structuredContent as unknown as Answered;
    expect(structured.status).toBe(200);
    expect(structured.user.id).toBe(id);
    expect(structured.user.firstName).toBe(body.firstName); // stored details kept
  });

  it('updates it: 200, the new details, income included', async () => {
    const result = await call('updateUser', { id, ...body, lastName: 'Boateng', monthlyIncome: 7 });
    const structured = result.structuredContent as unknown as Answered;
    expect(structured.status).toBe(200);
    expect(structured.user).toMatchObject({ id, lastName: 'Boateng', monthlyIncome: 7 });
  });

  it('refuses an invalid body with a tool error naming the field, sending nothing', async () => {
    const result = await call('createUser', { ...distinctUserBody(), email: 'not-an-email' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content[0]).toMatchObject({
      text: expect.stringMatching(/nothing was sent: email must be an e-mail address/),
    });
    const details = result.content[1];
    expect(details?.type === 'text' && JSON.parse(details.text)).toEqual({
      errors: [{ path: '/arguments/email', message: 'email must be an e-mail address' }],
    });
  });

  it('answers an unknown id with a tool error 404', async () => {
    const result = await call('updateUser', { id: randomUUID(), ...body });
    expect(result.isError).toBe(true);
    expect(problemOf(result)).toMatchObject({ status: 404 });
  });

  it('answers a call without the id with a tool error, and keeps serving', async () => {
    const result = await call('updateUser', { ...body });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ text: expect.stringMatching(/id is required/) });
    expect((await connected.client.listTools()).tools).toHaveLength(2);
  });

  it('offers the spec and the docs for agents as resources', async () => {
    const { resources } = await connected.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(
      expect.arrayContaining([
        'institution-api://docs/llms.txt',
        'institution-api://docs/llms/createUser.md',
        'institution-api://docs/openapi.yaml',
      ]),
    );
    const { contents } = await connected.client.readResource({
      uri: 'institution-api://docs/openapi.json',
    });
    const text = contents[0] && 'text' in contents[0] ? contents[0].text : '';
    expect(JSON.parse(text)).toEqual(openapiDocument);
  });

  it('logs one line per call, and the secret is in nothing it sent or logged', () => {
    const log = connected.log();
    for (const line of [
      /createUser -> 201 \(\d+ ms/,
      /createUser -> 200 \(\d+ ms/,
      /updateUser -> 200 \(\d+ ms/,
      /createUser -> refused here, nothing sent: \/arguments\/email/,
      /updateUser -> 404 /,
    ]) {
      expect(log).toMatch(line);
    }
    expect(`${log}${answered.join('')}`).not.toContain(credential.secretKey);
    expect(log).not.toContain(token);
  });
});
