import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

export function isExecutableFile(filePath: string): boolean {
  try {
    if (!statSync(filePath).isFile()) return false;
    accessSync(filePath, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Executable file names on this platform (Windows needs the .exe suffix). */
export function executableName(baseName: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? `${baseName}.exe` : baseName;
}

/** Like `which`: the first executable `name` in the directories of `pathVariable`. */
export function findOnPath(name: string, pathVariable: string | undefined): string | undefined {
  if (!pathVariable) return undefined;
  for (const dir of pathVariable.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
