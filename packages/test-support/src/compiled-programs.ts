/**
 * Programs in Go and Java (the docs' code samples, the signing test-vector runners) compiled the
 * way their readers are told to run them, linted on the way, and kept between test runs: a text
 * that did not change is not compiled again (javac and `go vet` take seconds on a shared machine).
 * The toolchains are Debian 12's (`golang-go`, `default-jdk-headless`), which `.ci/run` installs.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);

/** Where compiled programs are kept, keyed by toolchain version and source text (git-ignored). */
const cacheDir = fileURLToPath(
  new URL('../node_modules/.cache/compiled-programs/', import.meta.url),
);

/** The Debian package of each toolchain command, for the message when one is missing. */
const debianPackages: Record<string, string> = {
  go: 'golang-go',
  gofmt: 'golang-go',
  javac: 'default-jdk-headless',
  java: 'default-jdk-headless',
};

/** A compiled program: the command and arguments that start it (append the program's own). */
export interface CompiledProgram {
  command: string;
  args: string[];
}

/** Runs a toolchain command; rejects with its output when it fails, or says it is not installed. */
async function tool(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await execFile(command, args, { cwd, maxBuffer: 16 << 20 });
    return `${stdout}${stderr}`;
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
    if (code === 'ENOENT') {
      throw new Error(
        `${command} is not installed: install Debian's ${debianPackages[command] ?? command} (.ci/run does)`,
      );
    }
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

const versions = new Map<string, Promise<string>>();

/** A toolchain's version, asked once per process: part of the cache key. */
async function versionOf(command: string, args: string[]): Promise<string> {
  await mkdir(cacheDir, { recursive: true });
  let version = versions.get(command);
  if (!version) {
    version = tool(command, args, cacheDir).then((output) => output.trim());
    versions.set(command, version);
  }
  return version;
}

/**
 * Compiles once per toolchain and text: `compile(dir)` writes the program into a fresh directory,
 * which is moved into place whole, so a failed or interrupted compile is never reused.
 */
async function compileOnce(
  toolchain: string,
  source: string,
  compile: (dir: string) => Promise<void>,
): Promise<string> {
  const key = createHash('sha256').update(toolchain).update('\0').update(source).digest('hex');
  const dir = join(cacheDir, key.slice(0, 32));
  if (existsSync(dir)) return dir;
  const building = `${dir}.${process.pid}.tmp`;
  await rm(building, { recursive: true, force: true });
  await mkdir(building, { recursive: true });
  try {
    await compile(building);
    await rename(building, dir);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    if (existsSync(dir)) return dir; // another test process compiled the same text meanwhile
    throw error;
  }
  return dir;
}

/**
 * A Go program (one file, package main) built as `go run file.go` builds it, after `gofmt -l`
 * (it must be formatted) and `go vet`.
 */
export async function compileGo(source: string): Promise<CompiledProgram> {
  const version = await versionOf('go', ['env', 'GOVERSION']);
  const dir = await compileOnce(version, source, async (into) => {
    const file = join(into, 'main.go');
    await writeFile(file, source);
    if ((await tool('gofmt', ['-l', file], into)) !== '') {
      throw new Error(`not gofmt-formatted (gofmt -d shows how):\n${source}`);
    }
    await tool('go', ['vet', file], into);
    await tool('go', ['build', '-o', join(into, 'program'), file], into);
  });
  return { command: join(dir, 'program'), args: [] };
}

/**
 * A Java program (one file, one public class with `main`) compiled by javac with every lint
 * warning an error (`-Xlint:all -Werror`): the same compile that `java CreateUser.java`, the
 * source launcher, does in memory before every run.
 */
export async function compileJava(source: string): Promise<CompiledProgram> {
  const className = /^public (?:final )?class (\w+)/m.exec(source)?.[1];
  if (!className) throw new Error('the Java program declares no public class');
  const version = await versionOf('javac', ['-version']);
  const dir = await compileOnce(version, source, async (into) => {
    const file = join(into, `${className}.java`);
    await writeFile(file, source);
    await tool('javac', ['-Xlint:all', '-Werror', '-d', into, file], into);
  });
  return { command: 'java', args: ['-cp', dir, className] };
}
