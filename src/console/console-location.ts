import path from 'node:path';
import { findPackageRoot } from '../config/package-root';

/** The browser console's sources (TSX, HTML, CSS), bundled by `npm run build`. */
export const CONSOLE_SOURCE_DIR = path.join(findPackageRoot(__dirname), 'console');

/** Where `npm run build` writes the console's bundle and the starter API serves it from. */
export const CONSOLE_BUILD_DIR = path.join(findPackageRoot(__dirname), 'dist', 'console');

/** The path the starter API serves the console under. */
export const CONSOLE_PATH = '/console/';
