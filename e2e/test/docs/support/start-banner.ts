import { createRequire } from 'node:module';
import type { Credential } from '@institution-api/test-support/reference-server';

/** The reference server's start banner module, as built (its `src/demo-banner.ts`). */
const demoBannerModule = '@institution-api/reference-server/demo-banner';

/** What the tests use of the banner module; read from its build, so the tests follow its changes. */
interface DemoBanner {
  exampleUser: () => { email: string; ghanaCardNumber: string };
  startBanner: (options: {
    baseUrl: string;
    config: { signature: { algorithm: 'sha256'; encoding: 'hex' } };
    demo: Credential;
  }) => string;
}

async function demoBanner(): Promise<DemoBanner> {
  try {
    createRequire(import.meta.url).resolve(demoBannerModule);
  } catch {
    throw new Error(
      `${demoBannerModule} is missing: build it (npx turbo run build --filter=@institution-api/reference-server)`,
    );
  }
  return (await import(demoBannerModule)) as DemoBanner;
}

/** The user the banner's `curl` line creates (the spec's `UserWithoutAccount` example today). */
export async function bannerExampleUser(): Promise<{ email: string; ghanaCardNumber: string }> {
  return (await demoBanner()).exampleUser();
}

/**
 * The signed `curl` command a fresh `npm start` prints for its demo institution, as printed for
 * this server address and key pair (default signature settings: HMAC-SHA256, hex): the lines
 * from `curl` to the end of its continuation.
 */
export async function bannerCurlCommand(baseUrl: string, demo: Credential): Promise<string> {
  const banner = (await demoBanner()).startBanner({
    baseUrl,
    config: { signature: { algorithm: 'sha256', encoding: 'hex' } },
    demo,
  });
  const lines = banner.split('\n');
  const first = lines.findIndex((line) => line.startsWith('curl '));
  if (first === -1) throw new Error(`no curl line in the start banner:\n${banner}`);
  let last = first;
  while (lines[last]?.endsWith('\\')) last += 1;
  return lines.slice(first, last + 1).join('\n');
}
