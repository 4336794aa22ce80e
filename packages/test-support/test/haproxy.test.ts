/**
 * The HAProxy of ../src/haproxy.ts runs the repository's deploy/haproxy.cfg: only the two
 * addresses a container network gives are replaced, and a change of those lines is noticed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deployHaproxyConfig, haproxyConfigFor } from '../src/haproxy.ts';

describe('haproxyConfigFor', () => {
  const config = readFileSync(deployHaproxyConfig, 'utf8');

  it('changes the frontend’s bind and the backend’s address, and no other line', () => {
    const before = config.split('\n');
    const after = haproxyConfigFor(config, 18080, '127.0.0.1:9000').split('\n');
    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line, index) =>
      line === before[index] ? [] : [[before[index]?.trim(), line.trim()]],
    );
    expect(changed).toEqual([
      ['bind :8080', 'bind 127.0.0.1:18080'],
      ['server-template server 10 server:8080', 'server-template server 10 127.0.0.1:9000'],
    ]);
  });

  it('refuses a configuration without those lines, rather than running another one', () => {
    expect(() => haproxyConfigFor(config.replace('bind :8080', 'bind :80'), 1, 'a:1')).toThrow(
      'expected one line matching',
    );
    expect(() => haproxyConfigFor(config.replace('server:8080', 'app:8080'), 1, 'a:1')).toThrow(
      'expected one line matching',
    );
  });
});
