#!/usr/bin/env python3
"""tests/integration/proxy_client.py - a DNS client behind a pretend load
balancer: each query goes out with a PROXY protocol version 2 header in
front (haproxy's proxy-protocol.txt), over UDP, TCP or TLS (the header
before the TLS handshake), for tests/integration/proxy.sh.

usage: proxy_client.py MODE SERVER PORT HEADER QNAME [split]
  MODE    udp, tcp or tls
  HEADER  v4:ADDR:PORT, v6:ADDR:PORT (PROXY with that source), local
          (the LOCAL command), none (no header), and refused ones: v1
          (the text header), badver (version 3), unix (PROXY with AF_UNIX),
          short (a length shorter than the addresses), cut (the datagram
          or stream ends inside the header); tlv:N is v4:192.0.2.7:1234
          with N bytes of TLVs (NOOP TLVs of at most 1000 bytes each)
  split   TCP/TLS: the header goes in three writes 0.2 s apart
The client sends from 127.0.180.10, or from $PROXY_SRC (the proxy's own
address); with $PROXY_NORD set the query has no RD bit. Prints one line: "RCODE ANCOUNT" of the answer (e.g. "NOERROR 1"),
"TIMEOUT" when nothing came within 2 s, or "CLOSED" when the server closed
the connection without an answer.
"""
import os
import random
import socket
import ssl
import struct
import sys
import time

SIG = b"\r\n\r\n\x00\r\nQUIT\n"
SRC = os.environ.get("PROXY_SRC", "127.0.180.10")
RCODES = {0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN",
          4: "NOTIMP", 5: "REFUSED"}


def header(spec, dgram):
    """the PROXY header bytes for spec"""
    tp = 0x2 if dgram else 0x1
    if spec == "none":
        return b""
    if spec == "local":
        return SIG + bytes([0x20, 0x00]) + struct.pack("!H", 0)
    if spec == "v1":
        return b"PROXY TCP4 192.0.2.7 127.0.180.1 1234 53\r\n"
    tlvs = b""
    if spec.startswith("tlv:"):
        n = int(spec[4:])
        while n > 0:
            k = min(n, 1003)
            # PP2_TYPE_NOOP (0x04), its length, zero bytes
            tlvs += bytes([0x04]) + struct.pack("!H", k - 3) + bytes(k - 3)
            n -= k
        spec = "v4:192.0.2.7:1234"
    if spec.startswith("v4:") or spec in ("badver", "unix", "short", "cut"):
        ip, port = ("192.0.2.7", 1234)
        if spec.startswith("v4:"):
            _, ip, port = spec.split(":")
        addr = (socket.inet_pton(socket.AF_INET, ip) +
                socket.inet_pton(socket.AF_INET, "127.0.180.1") +
                struct.pack("!HH", int(port), 53)) + tlvs
        vc, fam, ln = 0x21, 0x10 | tp, len(addr)
        if spec == "badver":
            vc = 0x31
        elif spec == "unix":
            fam = 0x30 | tp
        elif spec == "short":
            ln = 8
            addr = addr[:8]
        h = SIG + bytes([vc, fam]) + struct.pack("!H", ln) + addr
        if spec == "cut":
            h = h[:20]
        return h
    if spec.startswith("v6:"):
        rest = spec[3:]
        ip, port = rest.rsplit(":", 1)
        addr = (socket.inet_pton(socket.AF_INET6, ip) +
                socket.inet_pton(socket.AF_INET6, "2001:db8::1") +
                struct.pack("!HH", int(port), 53))
        return SIG + bytes([0x21, 0x20 | tp]) + struct.pack("!H",
                                                            len(addr)) + addr
    raise SystemExit("unknown header " + spec)


def query(qname, qid):
    """a DNS query for qname A with RD (without, when $PROXY_NORD is set)"""
    rd = 0 if os.environ.get("PROXY_NORD") else 0x0100
    q = struct.pack("!HHHHHH", qid, rd, 1, 0, 0, 0)
    for label in qname.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    return q + b"\x00" + struct.pack("!HH", 1, 1)


def result(ans, qid):
    """the line to print for an answer"""
    if len(ans) < 12:
        return "SHORT"
    rid, flags, _, an = struct.unpack("!HHHH", ans[:8])
    if rid != qid:
        return "WRONGID"
    return "%s %d" % (RCODES.get(flags & 0xf, str(flags & 0xf)), an)


def read_n(s, n):
    """read exactly n bytes, or None on EOF"""
    b = b""
    while len(b) < n:
        d = s.recv(n - len(b))
        if not d:
            return None
        b += d
    return b


def main():
    if len(sys.argv) < 6:
        raise SystemExit(__doc__)
    mode, server, port, spec, qname = sys.argv[1:6]
    split = len(sys.argv) > 6 and sys.argv[6] == "split"
    qid = random.randint(1, 65535)
    q = query(qname, qid)
    port = int(port)
    if mode == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((SRC, 0))
        s.settimeout(2)
        # a cut header is the whole datagram: it ends inside the header
        s.sendto(header(spec, True) + (q if spec != "cut" else b""),
                 (server, port))
        try:
            ans = s.recv(65535)
        except socket.timeout:
            print("TIMEOUT")
            return
        print(result(ans, qid))
        return
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((SRC, 0))
    s.settimeout(2)
    s.connect((server, port))
    h = header(spec, False)
    try:
        if split and len(h) > 10:
            for part in (h[:7], h[7:15], h[15:]):
                s.sendall(part)
                time.sleep(0.2)
        else:
            s.sendall(h)
        if spec == "cut":
            # the stream ends inside the header
            s.shutdown(socket.SHUT_WR)
            print("CLOSED" if read_n(s, 1) is None else "ANSWERED")
            return
        if mode == "tls":
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            s = ctx.wrap_socket(s, server_hostname="proxy.test")
        s.sendall(struct.pack("!H", len(q)) + q)
        ln = read_n(s, 2)
        if ln is None:
            print("CLOSED")
            return
        ans = read_n(s, struct.unpack("!H", ln)[0])
        if ans is None:
            print("CLOSED")
            return
        print(result(ans, qid))
    except socket.timeout:
        print("TIMEOUT")
    except (ConnectionResetError, BrokenPipeError, ssl.SSLError, OSError):
        print("CLOSED")


if __name__ == "__main__":
    main()
