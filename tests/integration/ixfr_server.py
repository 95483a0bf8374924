#!/usr/bin/env python3
# tests/integration/ixfr_server.py - a small primary for authzone.sh that
# serves IXFR, which the NSD of the test machines (4.6) does not: zone
# ZONE at serial 2, with the difference from serial 1 (www A 192.0.2.1
# becomes 192.0.2.2). Over TCP on IP:53.
#   mode ixfr:   IXFR from serial 1 gets the difference; AXFR the zone
#   mode notimp: IXFR gets NOTIMP (the client must fall back to AXFR)
# Logs one line per query to stdout. Stops on TERM.
#
# usage: ixfr_server.py IP ZONE MODE [PORT]
import signal
import socket
import struct
import sys


def wire_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        if label:
            out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def rr(name, rtype, rdata, ttl=3600):
    return wire_name(name) + struct.pack("!HHIH", rtype, 1, ttl,
                                         len(rdata)) + rdata


def soa(zone, serial):
    rdata = wire_name("ns1.zz.") + wire_name("h." + zone) + \
        struct.pack("!IIIII", serial, 3600, 600, 604800, 300)
    return rr(zone, 6, rdata)


def a(name, last):
    return rr(name, 1, bytes([192, 0, 2, last]))


def ns(zone):
    return rr(zone, 2, wire_name("ns1.zz."))


def reply(query, rcode, answers):
    qid, = struct.unpack("!H", query[:2])
    # the question: up to the end of the name, plus type and class
    end = 12
    while query[end] != 0:
        end += query[end] + 1
    end += 5
    hdr = struct.pack("!HHHHHH", qid, 0x8400 | rcode, 1, len(answers), 0,
                      0)
    msg = hdr + query[12:end] + b"".join(answers)
    return struct.pack("!H", len(msg)) + msg


def main():
    ip, zone, mode = sys.argv[1], sys.argv[2].rstrip(".") + ".", \
        sys.argv[3]
    port = int(sys.argv[4]) if len(sys.argv) > 4 else 53
    www = "www." + zone
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((ip, port))
    s.listen(8)
    signal.signal(signal.SIGTERM, lambda *x: sys.exit(0))
    while True:
        c, _ = s.accept()
        try:
            ln = c.recv(2)
            if len(ln) < 2:
                continue
            n, = struct.unpack("!H", ln)
            q = b""
            while len(q) < n:
                more = c.recv(n - len(q))
                if not more:
                    break
                q += more
            end = 12
            while q[end] != 0:
                end += q[end] + 1
            qtype, = struct.unpack("!H", q[end + 1:end + 3])
            if qtype == 251 and mode == "ixfr":
                ans = [soa(zone, 2), soa(zone, 1), a(www, 1), soa(zone, 2),
                       a(www, 2), soa(zone, 2)]
                print("IXFR: difference 1 -> 2", flush=True)
                c.sendall(reply(q, 0, ans))
            elif qtype == 251:
                print("IXFR: NOTIMP", flush=True)
                c.sendall(reply(q, 4, []))
            elif qtype == 252:
                print("AXFR: the zone at serial 2", flush=True)
                c.sendall(reply(q, 0, [soa(zone, 2), ns(zone), a(www, 2),
                                       soa(zone, 2)]))
            else:
                c.sendall(reply(q, 5, []))
        except (OSError, IndexError, struct.error):
            pass
        finally:
            c.close()


main()
