#!/usr/bin/env node
/**
 * Reads the CPU profile `create-vs-bare.mjs` wrote (`node --cpu-prof --cpu-prof-dir=<dir>`) and
 * prints the time under `runCreate` against the time under `runBare`, then each function's self
 * time in both, as a percentage of the bare calls' total, sorted by the difference: what
 * `createUser` spends beyond a bare openapi-fetch `POST`, and what it saves.
 *
 * Usage: node bench/profile-split.mjs <dir> [rows]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, rowsArg] = process.argv.slice(2);
if (!dir) throw new Error('usage: node bench/profile-split.mjs <dir> [rows]');
const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`no .cpuprofile in ${dir}`);
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);
const name = ({ callFrame }) =>
  `${callFrame.functionName || '(anonymous)'} ${callFrame.url.split('/').at(-1)}:${callFrame.lineNumber}`;

const sides = new Map();
function sideOf(id) {
  if (sides.has(id)) return sides.get(id);
  const { functionName } = byId.get(id).callFrame;
  let side;
  if (functionName === 'runCreate') side = 'create';
  else if (functionName === 'runBare') side = 'bare';
  else if (parent.has(id)) side = sideOf(parent.get(id));
  sides.set(id, side);
  return side;
}

const self = { create: new Map(), bare: new Map() };
const total = { create: 0, bare: 0 };
profile.samples.forEach((id, i) => {
  const side = sideOf(id);
  if (!side) return;
  const micros = profile.timeDeltas[i] ?? 0;
  total[side] += micros;
  const key = name(byId.get(id));
  self[side].set(key, (self[side].get(key) ?? 0) + micros);
});
console.log(
  `createUser ${(total.create / 1000).toFixed(0)} ms, bare POST ${(total.bare / 1000).toFixed(0)} ms: ${(total.create / total.bare).toFixed(2)}x`,
);
const percent = (micros) => ((micros / total.bare) * 100).toFixed(1).padStart(6);
const keys = new Set([...self.create.keys(), ...self.bare.keys()]);
const rows = [...keys]
  .map((key) => [key, self.create.get(key) ?? 0, self.bare.get(key) ?? 0])
  .sort((a, b) => b[1] - b[2] - (a[1] - a[2]));
const shown = Number(rowsArg ?? 15);
console.log('  diff% create%  bare%  (self time, % of the bare calls)');
for (const [key, create, bare] of [...rows.slice(0, shown), ...rows.slice(-Math.min(shown, 8))]) {
  console.log(`${percent(create - bare)} ${percent(create)} ${percent(bare)}  ${key}`);
}
