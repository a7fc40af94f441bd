import { execFile } from 'node:child_process';
import { statfsSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from './processes.js';

/**
 * A small filesystem of its own for a store, so that a suite can fill it: a tmpfs of `sizeMiB`
 * mounted on a fresh temporary folder (this needs root, or CAP_SYS_ADMIN). Where none can be
 * mounted, `mountSmallFs` says why instead, in one line, and the suite skips.
 */

const run = promisify(execFile);

export interface SmallFs {
  readonly path: string;
  readonly sizeBytes: number;
  /** Bytes an unprivileged writer may still use. */
  freeBytes(): number;
  /**
   * Writes a filler file that leaves about `leaveBytes` free (tmpfs allocates as it is written,
   * so the file takes the space at once); `removeFiller` gives the space back.
   */
  fill(leaveBytes: number): number;
  removeFiller(): void;
  /** Unmounts (lazily, should a process still hold a file there) and removes the folder. */
  unmount(): Promise<void>;
}

export const mountSmallFs = async (prefix: string, sizeMiB: number): Promise<SmallFs | { readonly skip: string }> => {
  if (process.platform !== 'linux') return { skip: `tmpfs mounts need Linux (this is ${process.platform})` };
  if (process.getuid?.() !== 0)
    return { skip: `mounting a ${sizeMiB} MiB tmpfs needs root (uid ${String(process.getuid?.())})` };
  const dir = await tempDir(prefix);
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', dir.path]);
  } catch (err) {
    await dir.remove();
    return {
      skip: `mount -t tmpfs failed: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message.split('\n')[0]}`,
    };
  }
  const filler = join(dir.path, 'filler');
  const freeBytes = (): number => {
    const s = statfsSync(dir.path);
    return s.bavail * s.bsize;
  };
  return {
    path: dir.path,
    sizeBytes: sizeMiB * 1024 * 1024,
    freeBytes,
    fill: (leaveBytes) => {
      const size = Math.max(0, freeBytes() - leaveBytes);
      try {
        writeFileSync(filler, Buffer.alloc(size, 0x5a));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err; // the store took some meanwhile: full anyway
      }
      return size;
    },
    removeFiller: () => unlinkSync(filler),
    unmount: async () => {
      await run('umount', ['--lazy', dir.path]).catch(() => undefined);
      await dir.remove();
    },
  };
};
