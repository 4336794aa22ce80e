import { userInfo } from 'node:os';

/**
 * Who a change of a key pair is recorded as (the events' `actor`): the operating-system user
 * running the command. A container user without a name in /etc/passwd is recorded by its uid.
 */
export function currentActor(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}
