#!/usr/bin/env python3
"""tests/fuzz/gen_corpus.py - make the seed corpora of fuzz_proxy.c,
fuzz_http2.c and fuzz_control.c (tests/fuzz/corpus/{proxy,http2,control}),
and the real-* seeds of fuzz_packet.c and fuzz_config.c.

The seeds are what real clients send, in each target's input format (see
the file comment of each target):
  proxy    a piece-size byte, then a PROXY v2 header as haproxy and
           dnsdist write it (IPv4 and IPv6, UDP and TCP, LOCAL health
           checks, the TLVs they add: ALPN, AUTHORITY, CRC32C, UNIQUE_ID,
           SSL with its sub-TLVs, NOOP), then a DNS query (length-prefixed
           after a stream header);
  http2    a mode byte, then an RFC 8484 client's connection: the preface,
           SETTINGS, and GET (?dns=, base64url) and POST requests on one or
           more streams, with the frames clients mix in (WINDOW_UPDATE,
           PING, PRIORITY, RST_STREAM, CONTINUATION, GOAWAY) and the
           answers' error cases (wrong path, method, content type);
  control  the requests petrel-control (and unbound-control) send: the
           request line and, for the bulk commands, the lines after it
           ended by the byte 0x04;
  packet   (real-* files) queries and the answers an authoritative server
           gives from the signed zones of testdata/dnssec/ (every
           algorithm): positive answers with RRSIGs and glue, DNSKEY sets,
           NXDOMAIN with the NSEC or NSEC3 records, referrals with DS,
           CNAME, MX and SRV; names compressed as servers do (owners, and
           the names in NS, CNAME, MX and SOA RDATA), and once without;
  config   (real-* files) the test configs of testdata/conf/ (those
           without include) and example.conf's documented options,
           uncommented, a clause or a slice of one per file.
Run from the top of the source tree:  python3 tests/fuzz/gen_corpus.py
It rewrites the seed-* files of proxy, http2 and control and the real-*
files of packet and config (other files, those the fuzzers found and
-merge=1 kept among them, stay). The seeds are committed, so make check
does not need Python.
"""
import base64, hashlib, os, struct

def u8(v): return struct.pack("!B", v)
def u16(v): return struct.pack("!H", v)
def u32(v): return struct.pack("!I", v)

def name(s):
    if s == ".":
        return b"\x00"
    return b"".join(u8(len(l)) + l.encode() for l in s.rstrip(".").split(".")) + b"\x00"

def query(qid, qname, qtype, edns=True, do=False, cookie=False):
    """a stub's query: RD set, one question, an OPT record (1232, DO)"""
    m = u16(qid) + u16(0x0100) + u16(1) + u16(0) + u16(0) + u16(1 if edns else 0)
    m += name(qname) + u16(qtype) + u16(1)
    if edns:
        opts = b""
        if cookie:
            opts += u16(10) + u16(8) + bytes(range(1, 9))
        m += b"\x00" + u16(41) + u16(1232) + u32(0x8000 if do else 0) + u16(len(opts)) + opts
    return m

QUERIES = [query(0x1234, "www.example.com.", 1),
           query(0x0001, "example.org.", 28, do=True),
           query(0xbeef, "_dns.resolver.arpa.", 64, cookie=True),
           query(0x7777, "a.very.long.name.with.many.labels.example.net.", 16, edns=False)]

def write(outdir, data, prefix="seed-"):
    os.makedirs(outdir, exist_ok=True)
    h = hashlib.sha1(data).hexdigest()
    with open(os.path.join(outdir, prefix + h), "wb") as fp:
        fp.write(data)

def clean(outdir, prefix="seed-"):
    if os.path.isdir(outdir):
        for f in os.listdir(outdir):
            if f.startswith(prefix):
                os.unlink(os.path.join(outdir, f))

# ------------------------------------------------------------------ PROXY v2
SIG = b"\r\n\r\n\x00\r\nQUIT\n"

def tlv(t, v): return u8(t) + u16(len(v)) + v

def pp2(cmd, fam, addrs, tlvs=b""):
    body = addrs + tlvs
    return SIG + u8(0x20 | cmd) + u8(fam) + u16(len(body)) + body

def a4(src, dst, sport, dport):
    return bytes(map(int, src.split("."))) + bytes(map(int, dst.split("."))) + u16(sport) + u16(dport)

def a6(src, dst, sport, dport):
    import ipaddress
    return ipaddress.ip_address(src).packed + ipaddress.ip_address(dst).packed + u16(sport) + u16(dport)

def gen_proxy(out):
    v4 = a4("192.0.2.7", "198.51.100.1", 40000, 53)
    v6 = a6("2001:db8::7", "2001:db8::1", 4321, 853)
    ssl = tlv(0x20, u8(0x07) + u32(0) + tlv(0x21, b"TLSv1.3") + tlv(0x22, b"client.example") +
              tlv(0x23, b"TLS_AES_128_GCM_SHA256"))
    tlvsets = [b"", tlv(0x01, b"dot"), tlv(0x02, b"dns.example.com"),
               tlv(0x03, u32(0x12345678)), tlv(0x05, bytes(range(16))),
               tlv(0x04, b"") + tlv(0x04, b"\x00" * 5), ssl,
               tlv(0x01, b"h2") + tlv(0x02, b"doh.example") + ssl]
    q = QUERIES[0]
    for i, t in enumerate(tlvsets):
        # UDP: the query follows the header
        write(out, u8(i * 37 & 0xff) + pp2(1, 0x12, v4, t) + q)
        # TCP: the length-prefixed query follows
        write(out, u8(i * 11 & 0xff) + pp2(1, 0x21, v6, t) + u16(len(q)) + q)
    # LOCAL health checks: bare, and with the addresses haproxy still sends
    write(out, u8(0) + pp2(0, 0x00, b""))
    write(out, u8(3) + pp2(0, 0x11, v4, tlv(0x04, b"")) + QUERIES[1])
    # unspecified transport, and a short header cut in the middle
    write(out, u8(0xff) + pp2(1, 0x10, v4))
    write(out, u8(5) + pp2(1, 0x22, v6)[:30])
    # PROXY v1 text (refused)
    write(out, u8(1) + b"PROXY TCP4 192.0.2.7 198.51.100.1 40000 53\r\n" + q)

# ------------------------------------------------------------------ HTTP/2
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

def frame(t, flags, sid, payload):
    return struct.pack("!I", len(payload))[1:] + u8(t) + u8(flags) + u32(sid) + payload

def settings(pairs=()):
    return frame(4, 0, 0, b"".join(u16(k) + u32(v) for k, v in pairs))

def hint(v, prefix, first):
    """an HPACK integer with a prefix-bit prefix, first byte's high bits"""
    lim = (1 << prefix) - 1
    if v < lim:
        return u8(first | v)
    out = u8(first | lim)
    v -= lim
    while v >= 128:
        out += u8(0x80 | (v & 0x7f))
        v >>= 7
    return out + u8(v)

def hstr(s):
    b = s.encode() if isinstance(s, str) else s
    return hint(len(b), 7, 0) + b

def lit(n, v, incremental=False):
    """a literal header field: with incremental indexing (0x40) or
    without (0x00), new name"""
    return (b"\x40" if incremental else b"\x00") + hstr(n) + hstr(v)

def headers(method, path, extra=(), incremental=False):
    h = b""
    h += {"GET": b"\x82", "POST": b"\x83"}.get(method) or lit(":method", method)
    h += b"\x87"                                   # :scheme https
    h += lit(":authority", "dns.example.com", incremental)
    h += b"\x84" if path == "/" else lit(":path", path)
    for n, v in extra:
        h += lit(n, v, incremental)
    return h

def get_req(sid, q, path="/dns-query", extra=(("accept", "application/dns-message"),)):
    p = path + "?dns=" + base64.urlsafe_b64encode(q).decode().rstrip("=")
    return frame(1, 0x5, sid, headers("GET", p, extra))

def post_req(sid, q, path="/dns-query", ctype="application/dns-message", split=0):
    h = headers("POST", path, (("content-type", ctype), ("content-length", str(len(q))),
                               ("accept", "application/dns-message")), incremental=True)
    out = frame(1, 0x4, sid, h)
    if split:
        out += frame(0, 0, sid, q[:split]) + frame(0, 1, sid, q[split:])
    else:
        out += frame(0, 1, sid, q)
    return out

def gen_http2(out):
    start = PREFACE + settings(((3, 100), (4, 65535), (2, 0)))
    ack = frame(4, 1, 0, b"")
    q = QUERIES
    conns = [
        start + get_req(1, q[0]),
        start + ack + post_req(1, q[1]),
        start + ack + post_req(1, q[0]) + get_req(3, q[1]) + post_req(5, q[2], split=7),
        start + frame(8, 0, 0, u32(1 << 20)) + frame(6, 0, 0, b"pingping") + get_req(1, q[3]),
        # a request in HEADERS + CONTINUATION
        start + (lambda h: frame(1, 0x1, 1, h[:10]) + frame(9, 0x4, 1, h[10:]))(
            headers("GET", "/dns-query?dns=" + base64.urlsafe_b64encode(q[0]).decode().rstrip("="))),
        # PRIORITY, then the client resets its stream
        start + frame(2, 0, 1, u32(0) + u8(15)) + frame(1, 0x4, 1, headers("POST", "/dns-query", (("content-type", "application/dns-message"),))) +
            frame(3, 0, 1, u32(8)),
        # the error cases: 404, 405, 415, 400 (short and bad base64)
        start + get_req(1, q[0], path="/other"),
        start + frame(1, 0x5, 1, headers("PUT", "/dns-query")),
        start + post_req(1, q[0], ctype="text/plain"),
        start + get_req(1, b"\x00\x01\x02"),
        start + frame(1, 0x5, 1, headers("GET", "/dns-query?dns=!!notbase64")),
        # a body longer than its content-length, and one too short
        start + post_req(1, q[0] + b"\x00" * 20),
        start + frame(1, 0x4, 1, headers("POST", "/dns-query", (("content-type", "application/dns-message"),))) + frame(0, 1, 1, b"\x12\x34"),
        # many streams, then GOAWAY
        start + b"".join(get_req(2 * i + 1, q[i % 4]) for i in range(20)) + frame(7, 0, 0, u32(39) + u32(0)),
        # the client's preface alone, and a bad preface
        PREFACE,
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    ]
    modes = [0x00, 0x05, 0x0a, 0x13, 0x1c, 0x21, 0x46, 0x8b, 0xcf, 0x3d]
    for i, c in enumerate(conns):
        write(out, u8(modes[i % len(modes)]) + c)
        write(out, u8(modes[(i + 3) % len(modes)] | 0x20) + c)

# ------------------------------------------------------------------ control
def gen_control(out):
    reqs = [
        "PETREL1 status", "UBCT1 status", "PETREL1 stats_noreset",
        "PETREL1 verbosity 3", "PETREL1 flush www.example.com.",
        "PETREL1 flush_zone example.com", "PETREL1 flush_type example.com. AAAA",
        "PETREL1 lookup www.example.com.", "PETREL1 local_zone new.test. static",
        "PETREL1 local_zone example. redirect", "PETREL1 local_zone_remove example.",
        "PETREL1 local_data www.new.test. 300 IN A 192.0.2.9",
        "PETREL1 local_data txt.example. TXT \"a b\" \"c\"",
        "PETREL1 local_data_remove www.example.",
        "PETREL1 forward_add fwd2.test. 127.0.0.1@5353 ::1",
        "PETREL1 forward_add +i fwd3.test. 127.0.0.1",
        "PETREL1 forward_remove fwd.test.", "PETREL1 stub_add +ip stub2.test. 127.0.0.2",
        "PETREL1 stub_remove stub.test.", "PETREL1 forward 127.0.0.1@5353 127.0.0.2",
        "PETREL1 forward off", "PETREL1 forward",
        "PETREL1 view_local_zone v1 x.test. refuse", "PETREL1 view_local_zone_remove v1 view.test.",
        "PETREL1 view_local_data v1 b.view.test. AAAA 2001:db8::1",
        "PETREL1 view_local_data_remove v1 a.view.test.", "PETREL1 view_local_zone nov x.test. static",
        "PETREL1 set_option verbosity: 2", "PETREL1 set_option cache-max-ttl: 3600",
        "PETREL1 set_option no-such-option: 1", "PETREL1 get_option num-threads",
        "PETREL1 insecure_add neg.test.", "PETREL1 cache_lookup +t example.com.",
        "PETREL1 nosuchcommand arg", "PETREL2 status", "PETREL1", "PETREL1 local_zone",
        "PETREL1 local_zone a..b. static", "PETREL1 local_data bad",
    ]
    for r in reqs:
        write(out, (r + "\n").encode())
    bulk = [
        ("local_zones", ["a.test. static", "b.test. refuse", "bad line", "c.test. always_nxdomain"]),
        ("local_zones_remove", ["example.", "block.test.", "nothere."]),
        ("local_datas", ["a.test. A 192.0.2.1", "b.test. 60 IN MX 10 mx.b.test.", "junk"]),
        ("local_datas_remove", ["www.example.", "example."]),
    ]
    for cmd, lines in bulk:
        write(out, ("PETREL1 %s\n" % cmd + "\n".join(lines) + "\n\x04\n").encode())
    # a request line with CR LF, and trailing blanks
    write(out, b"UBCT1 local_zone crlf.test. static \t\r\n")

# ------------------------------------------------------------------ packet
class Msg:
    """a DNS message written as a server does, names compressed"""
    def __init__(self, qid, flags, compress=True):
        self.b = bytearray(12)
        self.qid, self.flags, self.compress = qid, flags, compress
        self.counts = [0, 0, 0, 0]
        self.names = {}

    def name(self, n, compress=None):
        if compress is None:
            compress = self.compress
        labels = [] if n == "." else n.rstrip(".").split(".")
        for i in range(len(labels)):
            key = tuple(l.lower() for l in labels[i:])
            if compress and key in self.names:
                self.b += u16(0xc000 | self.names[key])
                return
            if len(self.b) < 0x3fff:
                self.names.setdefault(key, len(self.b))
            self.b += u8(len(labels[i])) + labels[i].encode()
        self.b += b"\x00"

    def question(self, qname, qtype):
        self.name(qname)
        self.b += u16(qtype) + u16(1)
        self.counts[0] += 1

    def rr(self, sec, owner, t, f, rd, ttl=3600):
        from gen_val_corpus import TYPES
        self.name(owner)
        self.b += u16(TYPES[t]) + u16(1) + u32(ttl)
        at = len(self.b)
        self.b += b"\x00\x00"
        if t in ("NS", "CNAME"):
            self.name(f[0])
        elif t == "MX":
            self.b += u16(int(f[0]))
            self.name(f[1])
        elif t == "SOA":
            self.name(f[0])
            self.name(f[1])
            self.b += b"".join(u32(int(x)) for x in f[2:7])
        else:
            self.b += rd
        self.b[at:at + 2] = u16(len(self.b) - at - 2)
        self.counts[sec] += 1

    def opt(self, size=1232, do=True):
        self.b += b"\x00" + u16(41) + u16(size) + u32(0x8000 if do else 0) + u16(0)
        self.counts[3] += 1

    def wire(self):
        self.b[0:12] = u16(self.qid) + u16(self.flags) + b"".join(u16(c) for c in self.counts)
        return bytes(self.b)

def gen_packet(out):
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gen_val_corpus import load, TYPES
    qid = 0x4000
    for alg in (5, 7, 8, 10, 13, 14, 15, 16):
        apex = "alg%d.example." % alg
        rrs = load("testdata/dnssec/alg%d.signed" % alg)
        def sel(owner, t):
            return [r for r in rrs if r[0].lower() == owner.lower() and r[1] == t]
        def sigs(owner, t):
            return [r for r in rrs if r[0].lower() == owner.lower() and r[1] == "RRSIG" and r[2][0] == t]
        def answer(qname, qtype, ans, auth=(), add=(), rcode=0, compress=True, aa=True):
            nonlocal qid
            qid += 1
            m = Msg(qid, 0x8100 | (0x400 if aa else 0) | rcode, compress)
            m.question(qname, TYPES[qtype])
            for sec, group in ((1, ans), (2, auth), (3, add)):
                for r in group:
                    m.rr(sec, r[0], r[1], r[2], r[3])
            m.opt()
            write(out, m.wire(), "real-")
        www = "www." + apex
        # the query, as a validating resolver sends it
        qid += 1
        m = Msg(qid, 0x0010)
        m.question(www, 1)
        m.opt()
        write(out, m.wire(), "real-")
        ns = sel(apex, "NS") + sigs(apex, "NS")
        glue = [r for n in sel(apex, "NS") for r in sel(n[2][0], "A")]
        for compress in (True, False):
            answer(www, "A", sel(www, "A") + sigs(www, "A"), ns, glue, compress=compress)
        answer(www, "AAAA", sel(www, "AAAA") + sigs(www, "AAAA"))
        answer(apex, "DNSKEY", sel(apex, "DNSKEY") + sigs(apex, "DNSKEY"))
        answer(apex, "MX", sel(apex, "MX") + sigs(apex, "MX"), ns,
               [r for mx in sel(apex, "MX") for r in sel(mx[2][1], "A")])
        answer(apex, "SOA", sel(apex, "SOA") + sigs(apex, "SOA"))
        answer("srv." + apex, "SRV", sel("srv." + apex, "SRV") + sigs("srv." + apex, "SRV"))
        cn = sel("alias." + apex, "CNAME")
        if cn:
            answer("alias." + apex, "A", cn + sigs("alias." + apex, "CNAME") +
                   sel(cn[0][2][0], "A") + sigs(cn[0][2][0], "A"))
        # NXDOMAIN: the SOA and the whole NSEC or NSEC3 chain, signed
        soa = sel(apex, "SOA") + sigs(apex, "SOA")
        chain = [r for r in rrs if r[1] in ("NSEC", "NSEC3")]
        chain_sigs = [r for r in rrs if r[1] == "RRSIG" and r[2][0] in ("NSEC", "NSEC3")]
        answer("nx." + apex, "A", [], soa + chain + chain_sigs, rcode=3)
        # NODATA at the apex
        answer(apex, "TXT", [], soa + [r for r in chain if r[0].lower() == apex] +
               [r for r in chain_sigs if r[0].lower() == apex])
        # referrals: to a signed child (DS) and to an unsigned one
        for child in ("secsub.", "sub."):
            c = child + apex
            answer("www." + c, "A", [], sel(c, "NS") + sel(c, "DS") + sigs(c, "DS") +
                   [r for r in chain if r[0].lower() == c.lower()] +
                   [r for r in chain_sigs if r[0].lower() == c.lower()],
                   [r for n in sel(c, "NS") for r in sel(n[2][0], "A")], aa=False)
        # a truncated answer (TC, nothing but the question)
        qid += 1
        m = Msg(qid, 0x8700)
        m.question(apex, TYPES["DNSKEY"])
        write(out, m.wire(), "real-")

# ------------------------------------------------------------------ config
def gen_config(out):
    import glob, re
    for f in sorted(glob.glob("testdata/conf/*.conf")):
        data = open(f, "rb").read()
        if b"include" not in data and len(data) <= 4096:
            write(out, data, "real-")
    # example.conf: each clause's documented options, uncommented
    clause, opts = None, []
    def flush():
        for i in range(0, len(opts), 24):
            write(out, (clause + "\n" + "".join("\t%s\n" % o for o in opts[i:i + 24])).encode(), "real-")
    for line in open("example.conf"):
        m = re.match(r"^#? ?([a-z][a-z0-9-]*):\s*$", line)
        if m:
            if clause and opts:
                flush()
            clause, opts = m.group(1) + ":", []
            continue
        m = re.match(r"^\t#? ?([a-z][a-z0-9-]*:\s.*\S)\s*$", line)
        if clause and m:
            opts.append(m.group(1))
    if clause and opts:
        flush()

def main():
    base = "tests/fuzz/corpus"
    for n, f in (("proxy", gen_proxy), ("http2", gen_http2), ("control", gen_control)):
        d = os.path.join(base, n)
        clean(d)
        f(d)
    for n, f in (("packet", gen_packet), ("config", gen_config)):
        d = os.path.join(base, n)
        clean(d, "real-")
        f(d)

main()
