#!/usr/bin/env python3
"""tests/integration/xdp_query.py - one DNS query with a fixed ID, for
tests/integration/xdp.sh: prints the answer's bytes in hex (nothing when
no answer comes in 2 s), so that answers over XDP and over the ordinary
socket can be compared byte for byte.

Usage: xdp_query.py [--bad-checksum] SERVER NAME TYPE
--bad-checksum sends the query over a raw IPv4 socket with a UDP
checksum that is wrong (the server must drop it) and prints nothing.
"""
import socket
import struct
import sys

TYPES = {"A": 1, "AAAA": 28, "TXT": 16, "NS": 2, "SOA": 6}


def query(name, qtype):
    """a query with ID 0x5a5a, RD, and an OPT record (4096, no DO)"""
    q = struct.pack("!HHHHHH", 0x5A5A, 0x0100, 1, 0, 0, 1)
    for label in name.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\x00" + struct.pack("!HH", TYPES[qtype], 1)
    q += b"\x00" + struct.pack("!HHIH", 41, 4096, 0, 0)
    return q


def main():
    args = sys.argv[1:]
    bad = False
    if args and args[0] == "--bad-checksum":
        bad = True
        args = args[1:]
    server, name, qtype = args
    q = query(name, qtype)
    if bad:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
        sport = 40053
        udp = struct.pack("!HHHH", sport, 53, 8 + len(q), 0x1234) + q
        s.sendto(udp, (server, 0))
        return
    fam = socket.AF_INET6 if ":" in server else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(2)
    s.sendto(q, (server, 53))
    try:
        a = s.recv(65535)
    except socket.timeout:
        return
    print(a.hex())


if __name__ == "__main__":
    main()
