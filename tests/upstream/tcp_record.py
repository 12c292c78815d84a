#!/usr/bin/env python3
"""tcp_record.py - records one Tracy session on loopback, byte for byte.

usage: tcp_record.py LISTEN_PORT CLIENT_PORT OUT_PREFIX

Waits for a server (upstream's tracy-capture) on 127.0.0.1:LISTEN_PORT, connects it to
the client listening on 127.0.0.1:CLIENT_PORT, forwards both directions until both ends
have closed, and writes OUT_PREFIX.client (every byte the client sent) and
OUT_PREFIX.server (every byte the server sent). The welcome's host description is
replaced on the way, before the server sees it, so fixtures name no machine.
"""
import select
import socket
import struct
import sys
import time

HOST_INFO = b"OS: Linux\nCompiler: upstream Tracy client (fixture)\n"


def host_info_end(from_server):
    """Where the client's host description ends (status byte included), once the
    server's hello says the protocol: 64 to 74 have 8 more bytes of welcome before it."""
    if len(from_server) < 12:
        return None
    protocol = struct.unpack_from("<I", from_server, 8)[0]
    return 1 + (146 if protocol >= 76 else 154) + 1024


def main():
    listen_port, client_port, prefix = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", listen_port))
    lsock.listen(1)
    server, _ = lsock.accept()
    lsock.close()
    for _ in range(3000):
        try:
            client = socket.create_connection(("127.0.0.1", client_port))
            break
        except OSError:
            time.sleep(0.01)
    else:
        sys.exit("tcp_record: the client does not listen")
    from_client, from_server = bytearray(), bytearray()
    forwarded = 0  # bytes of from_client passed on to the server
    scrubbed = False
    ends = {server: client, client: server}
    while ends:
        readable, _, _ = select.select(list(ends), [], [])
        for s in readable:
            data = s.recv(65536)
            if s is server:
                if data:
                    from_server += data
                    try:
                        client.sendall(data)
                    except OSError:
                        pass
                else:
                    del ends[server]
                    try:
                        client.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                continue
            from_client += data
            end = host_info_end(from_server)
            if not scrubbed and end and len(from_client) >= end and from_client[0] == 1:
                from_client[end - 1024:end] = HOST_INFO.ljust(1024, b"\0")
                scrubbed = True
            # The welcome is held back until its host description is replaced; a refusal
            # (status 2) or a cut-off welcome goes on when the client closes.
            if scrubbed or not data or (len(from_client) >= 1 and from_client[0] != 1):
                try:
                    server.sendall(bytes(from_client[forwarded:]))
                except OSError:
                    pass
                forwarded = len(from_client)
            if not data:
                del ends[client]
                try:
                    server.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
    with open(prefix + ".client", "wb") as f:
        f.write(from_client)
    with open(prefix + ".server", "wb") as f:
        f.write(from_server)


if __name__ == "__main__":
    main()
