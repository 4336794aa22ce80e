import { openStorage } from '../../../src/storage/open-storage.js';

/**
 * Child process of first-start.test.ts: prints "opening", opens (and so creates) the embedded
 * database at argv[2], prints "opened", closes it and exits. The test kills it at chosen moments
 * between the two lines.
 */
const [location] = process.argv.slice(2);
process.stdout.write('opening\n');
const storage = await openStorage(location, { defaultDataDir: '/nonexistent' });
process.stdout.write('opened\n');
await storage.close();
