#!/usr/bin/env python3
"""tests/fuzz/gen_val_corpus.py - make the seed corpus of fuzz_val.c.

Reads the signed fixtures in testdata/dnssec/ and writes, in the input
format described in tests/fuzz/fuzz_val.c, seeds for every mode:
canonical RDATA of the types that hold names (one with a compression
pointer), DNSKEY + DS pairs, RRsets with their RRSIG and key, and the
NSEC and NSEC3 chains with a few questions. Run from the top of the
source tree:  python3 tests/fuzz/gen_val_corpus.py
The seeds are committed, so make check does not need Python.
(tests/fuzz/gen_corpus.py imports its zone reader for the packet seeds.)
"""
import base64, calendar, hashlib, os, struct, time

TYPES = {"A": 1, "NS": 2, "CNAME": 5, "SOA": 6, "MX": 15, "TXT": 16,
         "AAAA": 28, "SRV": 33, "DS": 43, "RRSIG": 46, "NSEC": 47,
         "DNSKEY": 48, "NSEC3": 50, "NSEC3PARAM": 51}
B32 = "0123456789abcdefghijklmnopqrstuv"

def name(s):
    if s == ".":
        return b"\x00"
    out = b""
    for lab in s.rstrip(".").split("."):
        out += bytes([len(lab)]) + lab.encode()
    return out + b"\x00"

def u16(v): return struct.pack("!H", v)
def u32(v): return struct.pack("!I", v)

def t32(s):
    return calendar.timegm(time.strptime(s, "%Y%m%d%H%M%S"))

def bitmap(types):
    wins = {}
    for t in types:
        v = TYPES[t]
        wins.setdefault(v >> 8, set()).add(v & 0xff)
    out = b""
    for w in sorted(wins):
        bits = wins[w]
        ln = max(bits) // 8 + 1
        b = bytearray(ln)
        for x in bits:
            b[x // 8] |= 0x80 >> (x % 8)
        out += bytes([w, ln]) + bytes(b)
    return out

def b32hex(s):
    bits = "".join(format(B32.index(c), "05b") for c in s.lower())
    return bytes(int(bits[i:i+8], 2) for i in range(0, len(bits) - 7, 8))

def rdata(t, f):
    if t == "A": return bytes(int(x) for x in f[0].split("."))
    if t in ("NS", "CNAME"): return name(f[0])
    if t == "MX": return u16(int(f[0])) + name(f[1])
    if t == "SOA": return name(f[0]) + name(f[1]) + b"".join(u32(int(x)) for x in f[2:7])
    if t == "SRV": return u16(int(f[0])) + u16(int(f[1])) + u16(int(f[2])) + name(f[3])
    if t == "DS": return u16(int(f[0])) + bytes([int(f[1]), int(f[2])]) + bytes.fromhex("".join(f[3:]))
    if t == "DNSKEY": return u16(int(f[0])) + bytes([int(f[1]), int(f[2])]) + base64.b64decode("".join(f[3:]))
    if t == "RRSIG":
        return (u16(TYPES[f[0]]) + bytes([int(f[1]), int(f[2])]) + u32(int(f[3])) +
                u32(t32(f[4])) + u32(t32(f[5])) + u16(int(f[6])) + name(f[7]) +
                base64.b64decode("".join(f[8:])))
    if t == "NSEC": return name(f[0]) + bitmap(f[1:])
    if t == "NSEC3":
        salt = b"" if f[3] == "-" else bytes.fromhex(f[3])
        h = b32hex(f[4])
        return (bytes([int(f[0]), int(f[1])]) + u16(int(f[2])) + bytes([len(salt)]) +
                salt + bytes([len(h)]) + h + bitmap(f[5:]))
    return None

def load(path):
    rrs = []
    for line in open(path):
        if not line.strip() or line.startswith(";"):
            continue
        line = line.split(";")[0]
        p = line.split()
        if p[1].isdigit():
            owner, ttl, cls, t, f = p[0], p[1], p[2], p[3], p[4:]
        else:
            owner, cls, t, f = p[0], p[1], p[2], p[3:]
        if t not in TYPES:
            continue
        rd = rdata(t, f)
        if rd is not None:
            rrs.append((owner, t, f, rd))
    return rrs

def chunk(b): return u16(len(b)) + b

def write(outdir, data):
    h = hashlib.sha1(data).hexdigest()
    with open(os.path.join(outdir, "seed-" + h), "wb") as fp:
        fp.write(data)

def main():
    src = "testdata/dnssec"
    out = "tests/fuzz/corpus/val"
    os.makedirs(out, exist_ok=True)
    for alg in (5, 7, 8, 10, 13, 14, 15, 16):
        rrs = load(os.path.join(src, "alg%d.signed" % alg))
        apex = "alg%d.example." % alg
        keys = [r for r in rrs if r[1] == "DNSKEY"]
        ds = load(os.path.join(src, "alg%d.ds" % alg))
        # mode 1: each key with the DS
        for k in keys:
            write(out, bytes([1]) + chunk(name(apex)) + chunk(k[3]) + chunk(ds[0][3]))
        # mode 2: www A with its RRSIG and the ZSK
        www = [r for r in rrs if r[0] == "www." + apex and r[1] == "A"]
        sig = [r for r in rrs if r[0] == "www." + apex and r[1] == "RRSIG" and r[2][0] == "A"]
        zsk = [k for k in keys if int(k[2][0]) == 256]
        if www and sig and zsk:
            d = bytes([2]) + chunk(name("www." + apex)) + chunk(u16(1)) + chunk(sig[0][3]) + chunk(zsk[0][3])
            for r in www:
                d += chunk(r[3])
            write(out, d)
        if alg != 8:
            continue
        # mode 0: the types with names
        done = set()
        for r in rrs:
            if r[1] in done or r[1] in ("A", "AAAA", "DNSKEY", "DS"):
                continue
            done.add(r[1])
            write(out, bytes([0]) + chunk(u16(TYPES[r[1]])) + chunk(r[3]))
        # a SOA whose RNAME is compressed against its MNAME
        mname = name("ns1.Example.")
        rd = mname + b"\x04Host" + bytes([0xc0, 7 + 4]) + u32(1) * 5
        write(out, bytes([0]) + chunk(u16(6)) + chunk(rd))
    # modes 3 and 4: the chains and some questions
    for alg, mode, t in ((8, 3, "NSEC"), (7, 4, "NSEC3")):
        apex = "alg%d.example." % alg
        rrs = load(os.path.join(src, "alg%d.signed" % alg))
        recs = b"".join(chunk(name(r[0])) + chunk(r[3]) for r in rrs if r[1] == t)
        for q, qt in (("nx.", "A"), ("www.", "TXT"), ("b.ent.", "A"),
                      ("x.wild.", "A"), ("sub.", "DS"), ("a.b.wild.", "TXT")):
            write(out, bytes([mode]) + chunk(name(q + apex)) + chunk(u16(TYPES[qt])) + recs)

if __name__ == "__main__":
    main()
