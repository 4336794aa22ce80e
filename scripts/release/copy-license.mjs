#!/usr/bin/env node
// @ts-check
// `prepack` of every published package: the repository's LICENSE copied into the package's
// folder (its working directory), so that the tarball `npm pack` and `npm publish` make carries
// the license text (npm packs a LICENSE of the package's own folder, never the repository's).
// The copy is generated, ignored by git (packages/*/LICENSE).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from './workspace.mjs';

copyFileSync(join(repositoryRoot, 'LICENSE'), join(process.cwd(), 'LICENSE'));
