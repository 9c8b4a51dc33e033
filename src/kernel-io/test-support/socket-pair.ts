// A connected pair of loopback TCP sockets for the kernel I/O tests (the server side as a Node
// server hands it out, so Node drives it as it drives HTTP connections), the descriptor Node holds
// for a socket, and a reader of an exact byte count. Test support only.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Pair {
  /** The accepted side, as an http.Server would get it. */
  server: net.Socket;
  client: net.Socket;
  close(): void;
}

export async function connectedPair(): Promise<Pair> {
  const listener = net.createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => listener.once('connection', resolve));
  const client = net.connect((listener.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    client.once('connect', resolve);
    client.once('error', reject);
  });
  const server = await accepted;
  listener.close();
  return {
    server,
    client,
    close: () => {
      client.destroy();
      server.destroy();
    },
  };
}

/** The descriptor Node's TCP handle holds for `socket`. */
export function fdOf(socket: net.Socket): number {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) throw new Error('the socket has no descriptor');
  return fd;
}

/** The next `count` bytes `socket` receives (rejects when it ends first). */
export function readExactly(socket: net.Socket, count: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      got += chunk.length;
      if (got >= count) {
        socket.off('data', onData);
        socket.off('end', onEnd);
        resolve(Buffer.concat(chunks).subarray(0, count));
      }
    };
    const onEnd = () => reject(new Error(`the socket ended after ${got} of ${count} bytes`));
    socket.on('data', onData);
    socket.once('end', onEnd);
  });
}
