import type { CliIo } from '../src/run-cli.js';

/** A stand-in for a terminal's stderr (the progress bars draw only on a TTY); `text()` is what was drawn. */
export const fakeTerminal = (): { readonly stream: CliIo['stderr'] & { readonly columns: number }; text(): string } => {
  let text = '';
  return {
    stream: { isTTY: true, columns: 100, write: (chunk: string) => (text += chunk) },
    text: () => text,
  };
};
