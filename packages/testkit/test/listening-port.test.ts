import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningPorts } from '../src/listening-port.js';

/** A child that listens on port 0 of 127.0.0.1 and prints its port, so the test knows the truth. */
const listener = async (ports: number): Promise<{ child: ChildProcessWithoutNullStreams; ports: number[] }> => {
  const child = spawn(process.execPath, [
    '-e',
    `const net = require('node:net');
     const servers = Array.from({ length: ${ports} }, () => net.createServer().listen(0, '127.0.0.1'));
     Promise.all(servers.map((s) => new Promise((r) => s.once('listening', r)))).then(() =>
       console.log(JSON.stringify(servers.map((s) => s.address().port))));`,
  ]);
  const [line] = (await once(child.stdout.setEncoding('utf8'), 'data')) as [string];
  return { child, ports: JSON.parse(line) as number[] };
};

describe('listeningPorts', () => {
  const children: ChildProcessWithoutNullStreams[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill();
  });

  it('reads the port from the server’s listening log line', () => {
    const output = `{"level":30,"msg":"starting"}\n{"level":30,"url":"http://127.0.0.1:41234","auth":"tokens","msg":"listening"}\n`;
    expect(listeningPorts(output, process.pid, [])).toEqual([41234]);
  });

  it('finds the ports a quiet process listens on through /proc, less the ports excluded', async () => {
    const { child, ports } = await listener(2);
    children.push(child);
    expect(listeningPorts('', child.pid as number, [ports[1] as number])).toEqual([ports[0]]);
    expect([...listeningPorts('', child.pid as number, [])].sort()).toEqual([...ports].sort());
  });

  it('finds nothing for a process that does not listen', () => {
    expect(listeningPorts('{"msg":"metrics listening","url":"http://127.0.0.1:9464"}', process.pid, [])).toEqual([]);
  });
});
