import { expect, test } from 'vitest';
import { oneTurnEach } from '../../src/http/one-turn-each.js';

test('works given together run one at a time, in order, with a turn of the event loop between', async () => {
  const turns = oneTurnEach();
  const events: string[] = [];
  const work = (name: string) => async () => {
    events.push(`${name} starts`);
    // Other requests' callbacks that became ready while this one ran.
    setImmediate(() => events.push(`after ${name}`));
    await Promise.resolve();
    events.push(`${name} ends`);
    return name;
  };
  const results = await Promise.all(['a', 'b', 'c'].map((name) => turns(work(name))));
  expect(results).toEqual(['a', 'b', 'c']);
  expect(events).toEqual([
    'a starts',
    'a ends',
    'after a',
    'b starts',
    'b ends',
    'after b',
    'c starts',
    'c ends',
  ]);
});

test('a work that fails fails its own caller; the next still runs', async () => {
  const turns = oneTurnEach();
  const failed = turns(() => Promise.reject(new Error('diagnosis failed')));
  const next = turns(async () => 'next');
  await expect(failed).rejects.toThrow('diagnosis failed');
  await expect(next).resolves.toBe('next');
});
