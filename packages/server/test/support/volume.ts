import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * A small ext4 volume of the test's own (an image file, loop-mounted, errors=remount-ro) to put
 * a SQLite database on, then fill it up or turn it read-only as a failing disk does. Root only.
 */
export interface TestVolume {
  /** Where it is mounted. */
  mount: string;
  /** Fills every byte left; answers a function that gives the space back. */
  fill(): () => void;
  /** An ext4 error: the kernel turns the volume read-only under the open files. */
  breakDown(): void;
  /** Unmounted and mounted again, as after the disk was replaced (the journal replays). */
  remount(): void;
  remove(): void;
}

/** A volume of `megabytes`, or null where it cannot be made (not root, no loop devices). */
export function makeVolume(megabytes = 24): TestVolume | null {
  if (process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'obolus-volume-'));
  const image = join(dir, 'image');
  const mount = join(dir, 'mnt');
  try {
    execFileSync('truncate', ['-s', `${megabytes}M`, image]);
    execFileSync('mkfs.ext4', ['-q', '-F', '-m', '0', image]);
    mkdirSync(mount);
    execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, mount]);
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const device = basename(execFileSync('findmnt', ['-n', '-o', 'SOURCE', mount]).toString().trim());
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      execFileSync('umount', [mount], { stdio: 'ignore' });
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', remove);
  return {
    mount,
    fill: () => {
      const filler = fillFile(join(mount, 'filler'));
      return () => rmSync(filler);
    },
    breakDown: () => execFileSync('sh', ['-c', `echo 1 > /sys/fs/ext4/${device}/trigger_fs_error`]),
    remount: () => {
      execFileSync('umount', [mount]);
      execFileSync('mount', ['-o', 'loop', image, mount]);
    },
    remove,
  };
}

/**
 * Empties SQLite's write-ahead log into the database file, so that the next write must grow a
 * file (a log with room left at its end would take a few writes on a full disk).
 */
export function truncateLog(file: string): void {
  const db = new SQLite(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

function fillFile(file: string): string {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 4096, 1]) {
      const chunk = Buffer.alloc(size);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return file;
}
