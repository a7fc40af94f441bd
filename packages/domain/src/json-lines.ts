/**
 * The lines of a JSON Lines text arriving in chunks (a file read as UTF-8, say): split at LF only,
 * a CR before it dropped, the last line kept without its LF. Not `node:readline`: it also ends a
 * line at U+2028 and U+2029, which JSON strings hold unescaped (`JSON.stringify` writes them raw),
 * so a plant named with one of them would be cut in two.
 */
export async function* jsonLines(chunks: AsyncIterable<string>): AsyncIterable<string> {
  const withoutCr = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);
  let rest = '';
  for await (const chunk of chunks) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) yield withoutCr(part);
  }
  if (rest !== '') yield withoutCr(rest);
}
