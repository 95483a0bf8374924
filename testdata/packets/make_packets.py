#!/usr/bin/env python3
"""Write the crafted edge-case packets of testdata/packets/.

Each case is one binary file NAME.bin; the file EXPECT lists, per case,
what tests/check_dns_parse.c must get from dns_msg_parse (full), from
dns_query_parse_fast (fast), and whether ldns_wire2pkt accepts it (ldns;
recorded so differences from ldns stay deliberate). Run from anywhere:
    python3 testdata/packets/make_packets.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def name(s):
    out = b""
    for lab in [x for x in s.split(".") if x]:
        out += bytes([len(lab)]) + lab.encode()
    return out + b"\0"


def hdr(id_=0x1234, flags=0x0100, qd=1, an=0, ns=0, ar=0):
    return struct.pack("!HHHHHH", id_, flags, qd, an, ns, ar)


def q(n="www.example.com", t=1, c=1):
    return name(n) + struct.pack("!HH", t, c)


def rr(owner, t, rdata, c=1, ttl=3600):
    return owner + struct.pack("!HHIH", t, c, ttl, len(rdata)) + rdata


def opt(udp=1232, opts=b"", do=False, version=0, owner=b"\0"):
    ttl = (version << 16) | (0x8000 if do else 0)
    return owner + struct.pack("!HHIH", 41, udp, ttl, len(opts)) + opts


PTR_Q = b"\xc0\x0c"   # pointer to the question name at 12
RESP = 0x8180

cases = []


def case(nm, data, full, fast, ldns):
    cases.append((nm, data, full, fast, ldns))


# well-formed
case("ok-query-edns", hdr(ar=1) + q() + opt(opts=b"\0\x0a\0\x08" + b"12345678"), "OK", "OK", 1)
case("ok-query-plain", hdr() + q(), "OK", "OK", 1)
resp = (hdr(flags=RESP, an=2, ns=1, ar=2) + q() +
        rr(PTR_Q, 5, b"\x03web" + b"\xc0\x10") +
        rr(b"\x03web\xc0\x10", 1, bytes([192, 0, 2, 1])) +
        rr(b"\xc0\x10", 2, b"\x03ns1\xc0\x10") +
        rr(b"\x03ns1\xc0\x10", 28, bytes(16)) +
        opt(do=True))
case("ok-response", resp, "OK", "NOT_QUERY", 1)
case("ok-response-trailing", resp + b"junk", "OK", "NOT_QUERY", 1)
mx = (hdr(flags=RESP, an=3) + q(t=15) +
      rr(PTR_Q, 15, b"\0\x0a\x04mail\xc0\x10") +
      rr(PTR_Q, 33, b"\0\x01\0\x02\0\x35" + b"\x03sip\xc0\x10") +
      rr(PTR_Q, 6, b"\x03ns1\xc0\x10" + b"\x05admin\xc0\x10" + bytes(20)))
case("ok-mx-srv-soa-compressed", mx, "OK", "NOT_QUERY", 1)
rrsig = (hdr(flags=RESP, an=2) + q() +
         rr(PTR_Q, 1, bytes([192, 0, 2, 1])) +
         rr(PTR_Q, 46, struct.pack("!HBBIIIH", 1, 8, 3, 3600, 2000000000, 1900000000, 4711) +
            name("example.com") + b"\xaa" * 64))
case("ok-rrsig", rrsig, "OK", "NOT_QUERY", 1)
case("ok-qdcount-0", hdr(qd=0, flags=RESP), "OK", "NOT_QUERY", 1)
case("ok-qdcount-0-query", hdr(qd=0), "OK", "QDCOUNT", 1)
case("ok-qdcount-2-query", hdr(qd=2) + q() + q("b.example"), "OK", "QDCOUNT", 1)
case("ok-unknown-type", hdr(flags=RESP, an=1) + q(t=65280) + rr(PTR_Q, 65280, b"\x01\x02\x03"),
     "OK", "NOT_QUERY", 1)

# truncation
case("empty", b"", "TRUNCATED", "TRUNCATED", 0)
case("trunc-header", hdr()[:11], "TRUNCATED", "TRUNCATED", 0)
case("trunc-qname", (hdr() + q())[:20], "TRUNCATED", "TRUNCATED", 0)
case("trunc-qtype", (hdr() + q())[:31], "TRUNCATED", "TRUNCATED", 0)
case("trunc-rdata", resp[:60], "TRUNCATED", "NOT_QUERY", 0)
case("trunc-opt", (hdr(ar=1) + q() + opt(opts=b"\0\x0a\0\x08" + b"12345678"))[:-3],
     "TRUNCATED", "TRUNCATED", 0)
case("counts-too-big", hdr(flags=RESP, an=65535) + q() + rr(PTR_Q, 1, bytes(4)),
     "TRUNCATED", "NOT_QUERY", 0)

# compression pointers
case("ptr-self-qname", hdr() + b"\xc0\x0c" + struct.pack("!HH", 1, 1),
     "POINTER_LOOP", "POINTER_NOT_ALLOWED", 0)
# answer owner at 33 points forward to 49, which points back to 33
loop = hdr(flags=RESP, an=2) + q()
loop += rr(b"\xc0\x31", 1, bytes(4))           # at 33, ->49 (forward)
loop += rr(b"\xc0\x21", 1, bytes(4))           # at 49, ->33
case("ptr-loop-two", loop, "BAD_POINTER", "NOT_QUERY", 0)
case("ptr-forward", hdr(flags=RESP, an=1) + q() + rr(b"\xc0\x40", 1, bytes(4)) + b"\0" * 40,
     "BAD_POINTER", "NOT_QUERY", 1)
case("ptr-outside", hdr(flags=RESP, an=1) + q() + rr(b"\xff\xff", 1, bytes(4)),
     "BAD_POINTER", "NOT_QUERY", 0)
case("ptr-in-label-run", hdr(flags=RESP, an=1) + q() + rr(b"\x01a\xc0\x21", 1, bytes(4)),
     "POINTER_LOOP", "NOT_QUERY", 0)
# 71 pointers: the second answer's owner points at the last of 70 two-byte
# pointers kept in the first answer's RDATA, each pointing at the one before
# (all backwards), the first at the question name
# (ldns follows any number of pointers as long as they do not loop)
pkt = hdr(flags=RESP, an=2) + q()
base = len(pkt) + 2 + 10  # rdata of the first RR starts here
ptrs = b"\xc0\x0c"
for i in range(69):
    ptrs += struct.pack("!H", 0xc000 | (base + 2 * i))
pkt += rr(PTR_Q, 65280, ptrs)
pkt += rr(struct.pack("!H", 0xc000 | (base + 2 * 69)), 1, bytes(4))
case("ptr-too-many", pkt, "TOO_MANY_POINTERS", "NOT_QUERY", 1)

# labels and names
case("label-64", hdr() + b"\x40" + b"a" * 64 + b"\0" + struct.pack("!HH", 1, 1),
     "BAD_LABEL", "BAD_LABEL", 0)
case("label-type-80", hdr() + b"\x80\x01" + b"\0" + struct.pack("!HH", 1, 1),
     "BAD_LABEL", "BAD_LABEL", 0)
n256 = (b"\x3f" + b"a" * 63) * 4 + b"\0"
case("name-256", hdr() + n256 + struct.pack("!HH", 1, 1), "NAME_TOO_LONG", "NAME_TOO_LONG", 0)
n255 = (b"\x3f" + b"a" * 63) * 3 + b"\x3d" + b"b" * 61 + b"\0"
case("ok-name-255", hdr() + n255 + struct.pack("!HH", 1, 1), "OK", "OK", 1)
# 4 x 63 in the question as 2 labels + pointer to 2 labels: 257 when joined
big = hdr(flags=RESP, an=1) + b"\x3f" + b"a" * 63 + b"\x3f" + b"b" * 63 + b"\0" + struct.pack("!HH", 1, 1)
big += rr(b"\x3f" + b"c" * 63 + b"\x3f" + b"d" * 63 + b"\xc0\x0c", 1, bytes(4))
case("name-256-compressed", big, "NAME_TOO_LONG", "NOT_QUERY", 0)

# OPT placement and shape
case("opt-in-answer", hdr(flags=RESP, an=1) + q() + opt(), "OPT_NOT_ADDITIONAL", "NOT_QUERY", 1)
case("opt-in-authority", hdr(flags=RESP, ns=1) + q() + opt(), "OPT_NOT_ADDITIONAL", "NOT_QUERY", 1)
case("opt-in-answer-query", hdr(an=1) + q() + opt(), "OPT_NOT_ADDITIONAL",
     "OPT_NOT_ADDITIONAL", 1)
case("opt-twice", hdr(ar=2) + q() + opt() + opt(udp=4096), "OPT_TWICE", "OPT_TWICE", 1)
case("opt-option-overrun", hdr(ar=1) + q() + opt(opts=b"\0\x0a\0\x09" + b"12345678"),
     "BAD_OPT", "BAD_OPT", 1)
case("opt-option-short", hdr(ar=1) + q() + opt(opts=b"\0\x0a\0"), "BAD_OPT", "BAD_OPT", 1)
case("opt-owner-not-root", hdr(ar=1) + q() + opt(owner=PTR_Q), "BAD_OPT", "BAD_OPT", 1)
case("ok-opt-version-1", hdr(ar=1) + q() + opt(version=1), "OK", "OK", 1)

# RDATA per type
case("rdata-cname-overrun", hdr(flags=RESP, an=1) + q() +
     rr(PTR_Q, 5, b"\x05abc") + b"de\0", "BAD_RDATA", "NOT_QUERY", 1)
case("rdata-cname-short", hdr(flags=RESP, an=1) + q() + rr(PTR_Q, 5, b"\x03abc\0") + b"\0",
     "OK", "NOT_QUERY", 1)
case("rdata-cname-extra", hdr(flags=RESP, an=1) + q() + rr(PTR_Q, 5, b"\x03abc\0\0"),
     "BAD_RDATA", "NOT_QUERY", 1)
case("rdata-soa-short", hdr(flags=RESP, an=1) + q() + rr(PTR_Q, 6, b"\0\0" + bytes(19)),
     "BAD_RDATA", "NOT_QUERY", 0)
case("rdata-a-5", hdr(flags=RESP, an=1) + q() + rr(PTR_Q, 1, bytes(5)), "BAD_RDATA", "NOT_QUERY", 1)
case("rdata-aaaa-4", hdr(flags=RESP, an=1) + q() + rr(PTR_Q, 28, bytes(4)), "BAD_RDATA",
     "NOT_QUERY", 0)
case("rdata-mx-no-name", hdr(flags=RESP, an=1) + q() + rr(PTR_Q, 15, b"\0\x0a"), "BAD_RDATA",
     "NOT_QUERY", 1)
case("rdata-ns-bad-pointer", hdr(flags=RESP, an=1) + q() + rr(PTR_Q, 2, b"\xc0\x30"),
     "BAD_RDATA", "NOT_QUERY", 0)
case("rdata-rrsig-short", hdr(flags=RESP, an=1) + q() + rr(PTR_Q, 46, bytes(17)), "BAD_RDATA",
     "NOT_QUERY", 0)

with open(os.path.join(HERE, "EXPECT"), "w") as f:
    f.write("# name full-parse fast-parse ldns-accepts (written by make_packets.py)\n"
            "# Deliberate differences from ldns (1 in the last column with an\n"
            "# error in the first): ldns does not check the EDNS option list,\n"
            "# the RDATA length of A or a missing MX exchange, forward pointers,\n"
            "# or the number of pointers in a name; petrel rejects all of them.\n")
    for nm, data, full, fast, ldns in cases:
        with open(os.path.join(HERE, nm + ".bin"), "wb") as b:
            b.write(data)
        f.write("%s %s %s %d\n" % (nm, full, fast, ldns))
print("%d packets" % len(cases))
