import { stderr, stdin } from 'node:process';

/**
 * One line from standard input: the new password. Piped, it is read as is; typed at a
 * terminal, the terminal's echo is off so it never shows on screen.
 */
export async function readPasswordLine(): Promise<string> {
  if (stdin.isTTY) {
    stderr.write('New dashboard password (not shown): ');
    stdin.setRawMode(true);
  }
  let text = '';
  try {
    for await (const chunk of stdin) {
      text += String(chunk);
      if (text.includes('\n') || text.includes('\r') || text.includes('\u0003')) break;
    }
  } finally {
    if (stdin.isTTY) {
      stdin.setRawMode(false);
      stderr.write('\n');
    }
    stdin.pause();
  }
  if (text.includes('\u0003')) throw new Error('Cancelled.');
  return text.split(/\r?\n|\r/)[0] ?? '';
}
