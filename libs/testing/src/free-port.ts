import net from 'node:net';

/**
 * Why this exists: a test that runs a program on its default ports (`npm start`, a port
 * already taken) needs a port nothing listens on, found the way the program will bind it.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
