#!/usr/bin/env python3
"""tests/integration/keytrap_load.py - cached clients beside KeyTrap
attack queries, for keytrap.sh and bench/keytrap (issue 29, section 1).

usage: keytrap_load.py SERVER PORT SOURCE SECONDS CACHED_NAME RATE
                       ATTACK_SUFFIX ATTACK_RATE [DEADLINE_MS [DRAIN_S]]

For SECONDS, from SOURCE (a loopback address), over UDP:
  - RATE queries a second for CACHED_NAME A (DO set), evenly paced, each
    with its own ID from its own socket of a small pool; an answer counts
    when it carries the query's ID and rcode NOERROR, and is "in time"
    when it came within DEADLINE_MS (default 100) of its query. The time
    an answer came is the kernel's receive timestamp (SO_TIMESTAMPNS),
    not the time this script got round to reading it: on a loaded
    machine the client's own scheduling delays do not count against the
    resolver;
  - ATTACK_RATE queries a second (0: none) for rN.ATTACK_SUFFIX A with
    DO, N a new number each time (every one a new name: nothing cached
    can answer it), not waited for; their answers and rcodes are counted.
After the last query, waits for late answers: until every query is
answered, DRAIN_S seconds at most (default 3). Prints two lines:
  cached sent S answered A in_time T pct P p50_ms X p99_ms Y max_ms Z
  attack sent N answered K servfail F
Exit 0.

usage: keytrap_load.py burst SERVER PORT SOURCE CACHED_NAME NCACHED
                       ATTACK_SUFFIX NATTACK
A burst: NATTACK attack queries (rN.ATTACK_SUFFIX A, DO, new names) sent
at once; when the first of their answers comes, NCACHED queries for
CACHED_NAME at once; then every answer is awaited (10 s at most). The
order of the answers is the kernel's receive timestamps (one clock for
every socket). Prints one line:
  burst attack sent N answered K span_ms S cached sent C answered A
  after_last L max_ms M
span_ms: from the first attack answer to the last; after_last: cached
answers that came after the last attack answer; max_ms: the slowest
cached answer, from its query. Exit 0.
"""
import random
import select
import socket
import struct
import sys
import time


# Linux: SO_TIMESTAMPNS (= SCM_TIMESTAMPNS), not in Python's socket module
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def query(qid, name, do=True):
    q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 1 if do else 0)
    for label in name.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\x00" + struct.pack(">HH", 1, 1)
    if do:  # OPT: 1232 bytes, DO
        q += b"\x00" + struct.pack(">HHIH", 41, 1232, 0x8000, 0)
    return q


def open_socket(source):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((source, 0))
    s.setblocking(False)
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    except OSError:
        pass
    return s


def receive(s):
    """the datagrams waiting on s, each (packet, kernel receive time)"""
    out = []
    while True:
        try:
            pkt, anc, _, _ = s.recvmsg(65535, 64)
        except (BlockingIOError, InterruptedError):
            return out
        got = time.time()
        for lvl, typ, data in anc:
            if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS \
                    and len(data) >= 16:
                sec, nsec = struct.unpack("qq", data[:16])
                got = sec + nsec / 1e9
        if len(pkt) >= 12:
            out.append((pkt, got))


def burst(a):
    server, port, source = a[0], int(a[1]), a[2]
    cname, ncached, asuffix, nattack = a[3], int(a[4]), a[5], int(a[6])
    rnd = random.Random(29)
    asock = open_socket(source)
    csock = open_socket(source)
    atimes = []
    csent = {}          # id -> send time
    cstarted = False
    clat = []
    cafter = []
    for n in range(1, nattack + 1):
        asock.sendto(query(rnd.randrange(65536), f"r{n}.{asuffix}"),
                     (server, port))
    end = time.monotonic() + 10.0
    while time.monotonic() < end and (len(atimes) < nattack or
                                      len(clat) < ncached):
        r, _, _ = select.select([asock, csock], [], [], 0.05)
        if asock in r:
            for pkt, got in receive(asock):
                atimes.append(got)
            if atimes and not cstarted:
                # the first attack answer: the cached queries, at once
                cstarted = True
                ids = rnd.sample(range(65536), ncached)
                for qid in ids:
                    csent[qid] = time.time()
                    csock.sendto(query(qid, cname), (server, port))
        if csock in r:
            for pkt, got in receive(csock):
                qid, flags = struct.unpack(">HH", pkt[:4])
                if qid in csent and flags & 0xF == 0:
                    clat.append(got - csent.pop(qid))
                    cafter.append(got)
    last = max(atimes) if atimes else 0
    span = (last - min(atimes)) * 1000 if atimes else 0
    print(f"burst attack sent {nattack} answered {len(atimes)} "
          f"span_ms {span:.1f} cached sent {ncached} answered {len(clat)} "
          f"after_last {sum(1 for t in cafter if t > last)} "
          f"max_ms {(max(clat) * 1000 if clat else 0):.1f}")


def main():
    a = sys.argv[1:]
    if a and a[0] == "burst":
        if len(a) < 8:
            sys.exit(__doc__)
        burst(a[1:])
        return
    if len(a) < 8:
        sys.exit(__doc__)
    server, port, source = a[0], int(a[1]), a[2]
    seconds, cname, rate = float(a[3]), a[4], float(a[5])
    asuffix, arate = a[6], float(a[7])
    deadline = (float(a[8]) if len(a) > 8 else 100.0) / 1000.0
    drain = float(a[9]) if len(a) > 9 else 3.0
    rnd = random.Random(29)
    socks = []
    for _ in range(8):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((source, 0))
        s.setblocking(False)
        try:
            s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        except OSError:
            pass
        socks.append(s)
    asock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    asock.bind((source, 0))
    asock.setblocking(False)
    pending = {}        # (sock index, id) -> send time
    lat = []
    csent = asent = aans = afail = 0
    t0 = time.monotonic()
    end = t0 + seconds
    next_c = t0
    next_a = t0 + 0.05
    n = 0
    while True:
        now = time.monotonic()
        if now >= end + drain or (now >= end and not pending and
                                  aans >= asent):
            break
        if now < end and rate > 0 and now >= next_c:
            i = csent % len(socks)
            qid = rnd.randrange(65536)
            while (i, qid) in pending:
                qid = rnd.randrange(65536)
            try:
                pending[(i, qid)] = time.time()
                socks[i].sendto(query(qid, cname), (server, port))
            except OSError:
                pending.pop((i, qid), None)
            csent += 1
            next_c += 1.0 / rate
        if now < end and arate > 0 and now >= next_a:
            n += 1
            try:
                asock.sendto(query(rnd.randrange(65536),
                                   f"r{n}.{asuffix}"), (server, port))
            except OSError:
                pass
            asent += 1
            next_a += 1.0 / arate
        wake = min(next_c if rate > 0 and now < end else end + drain,
                   next_a if arate > 0 and now < end else end + drain,
                   end + drain)
        r, _, _ = select.select(socks + [asock], [], [],
                                max(0.0, min(wake - time.monotonic(), 0.05)))
        for s in r:
            while True:
                try:
                    pkt, anc, _, _ = s.recvmsg(65535, 64)
                except (BlockingIOError, InterruptedError):
                    break
                got = time.time()
                for lvl, typ, data in anc:
                    if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS \
                            and len(data) >= 16:
                        sec, nsec = struct.unpack("qq", data[:16])
                        got = sec + nsec / 1e9
                if len(pkt) < 12:
                    continue
                qid, flags = struct.unpack(">HH", pkt[:4])
                if s is asock:
                    aans += 1
                    if flags & 0xF == 2:
                        afail += 1
                    continue
                k = (socks.index(s), qid)
                if k in pending and flags & 0xF == 0:
                    lat.append(got - pending.pop(k))
    lat.sort()
    intime = sum(1 for x in lat if x <= deadline)

    def pct(p):
        return lat[min(len(lat) - 1, int(len(lat) * p))] * 1000 if lat else 0
    print(f"cached sent {csent} answered {len(lat)} in_time {intime} "
          f"pct {100.0 * intime / max(csent, 1):.2f} p50_ms {pct(0.5):.1f} "
          f"p99_ms {pct(0.99):.1f} max_ms {(lat[-1] * 1000 if lat else 0):.1f}")
    print(f"attack sent {asent} answered {aans} servfail {afail}")


if __name__ == "__main__":
    main()
