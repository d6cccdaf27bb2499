// This package's own package.json, read once: two folders up from here both in src/util/ (the
// sources) and in dist/util/ (the compiled package), so it is found wherever warpgate runs.
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** The version warpgate reports (status page, OpenAPI document). */
export const PACKAGE_VERSION: string = manifest.version;
