/**
 * The built `institution-api-mock` in a process of its own, as a user's shell starts it, stopped
 * by PID (through the one harness's `startListeningProcess`).
 */
import { fileURLToPath } from 'node:url';
import {
  type ListeningProcess,
  startListeningProcess,
} from '@institution-api/test-support/listening-process';

/** The committed launcher of the bin. */
export const mockBin = fileURLToPath(new URL('../../bin/institution-api-mock.js', import.meta.url));

/** Starts the mock server on a free port with `credentials` (none: a demo pair). */
export function startMockProcess(
  credentials?: readonly object[],
  env: NodeJS.ProcessEnv = {},
): Promise<ListeningProcess> {
  return startListeningProcess([mockBin, '--port', '0'], {
    PATH: process.env.PATH,
    ...(credentials ? { INSTITUTION_CREDENTIALS: JSON.stringify(credentials) } : {}),
    ...env,
  });
}
