#!/usr/bin/env python3
"""TCP relay for the network fault tests: forwards every connection accepted
on LISTEN to TARGET, delaying each chunk by DELAY_MS plus a uniform jitter of
up to JITTER_MS (order preserved). SIGUSR1 resets every relayed connection
(closed with SO_LINGER 0, so both ends get a TCP reset); SIGSTOP/SIGCONT from
the test stall and resume it.

usage: relay.py LISTEN_HOST:PORT TARGET_HOST:PORT DELAY_MS JITTER_MS
"""
import asyncio
import random
import signal
import socket
import struct
import sys

CHUNK = 64 * 1024


def split(hostport):
    host, port = hostport.rsplit(":", 1)
    return host, int(port)


async def pump(reader, writer, delay, jitter):
    """Copies reader to writer, each chunk due delay + jitter after it was read."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def read_side():
        while True:
            data = await reader.read(CHUNK)
            due = loop.time() + (delay + random.uniform(0, jitter)) / 1000.0
            await queue.put((due, data))
            if not data:
                return

    async def write_side():
        last = 0.0
        while True:
            due, data = await queue.get()
            last = max(last, due)
            wait = last - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.write_eof()
                return
            writer.write(data)
            await writer.drain()

    try:
        await asyncio.gather(read_side(), write_side())
    except (ConnectionError, OSError):
        pass


async def main():
    listen, target, delay, jitter = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    connections = []

    def reset_all():
        for w in connections:
            sock = w.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            w.transport.abort()
        connections.clear()

    async def handle(client_reader, client_writer):
        host, port = split(target)
        try:
            server_reader, server_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.transport.abort()
            return
        connections.extend([client_writer, server_writer])
        await asyncio.gather(
            pump(client_reader, server_writer, delay, jitter),
            pump(server_reader, client_writer, delay, jitter),
        )

    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, reset_all)
    host, port = split(listen)
    server = await asyncio.start_server(handle, host, port, reuse_address=True)
    print("relay ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
