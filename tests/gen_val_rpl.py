#!/usr/bin/env python3
"""tests/gen_val_rpl.py - (re)generate the validator replay scenarios
testdata/val_*.rpl (issue 16).

The scenarios must be deterministic, so the signed data is made here, once,
and committed inside the .rpl files: this script builds a small signed
hierarchy with ldns-keygen and ldns-signzone (signature dates fixed around
the replay runner's fake clock, 1000000000 = 2001-09-09), serves it with
NSD on 127.0.30.N port 53053 (the dnssec helper's loopback block, no port
53, no lock needed), and records with dig every answer a scenario needs.

Which answers does a scenario need? The script does not guess: it writes the
scenario with the answers it has, runs tests/replay/replay on it, and when
the runner says "no entry answers the query NAME TYPE to 198.51.100.N", it
asks NSD N that question with dig, adds the entry, and runs it again. So the
ranges of a scenario hold exactly the questions the resolver asks, answered
by a real authoritative server from really signed zones. Bogus variants are
zones signed wrongly on purpose, or a recorded answer edited (a scenario's
"edit" function), never hand-made signatures.

The expected answers (CHECK_ANSWER) are written from the scenario table
below: the rcode, AD, the EDE code, and the answer section as the recorded
answers of the authoritative servers (with their RRSIGs for DO clients).

Usage (root not needed; needs nsd, ldns-keygen, ldns-signzone, dig and a
built tests/replay/replay):  python3 tests/gen_val_rpl.py [NAME...]
Keys are new on every run, so every file changes: commit them together.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
TESTDATA = os.path.join(TOP, "testdata")
REPLAY = os.path.join(HERE, "replay", "replay")
PORT = 53053
NSD = shutil.which("nsd") or "/usr/sbin/nsd"

# signature windows (the fake clock starts at 2001-09-09 01:46:40)
VALID = ["-i", "20010801000000", "-e", "20011201000000"]
EXPIRED = ["-i", "20010601000000", "-e", "20010801000000"]
NOTYET = ["-i", "20011001000000", "-e", "20011201000000"]

WORK = tempfile.mkdtemp(prefix="petrel-genval-")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          cwd=kw.get("cwd", WORK)).stdout


TWOALG_KSK8 = []


def keygen(zone, alg, bits=None, ksk=False):
    cmd = ["ldns-keygen", "-a", alg]
    if bits:
        cmd += ["-b", str(bits)]
    if ksk:
        cmd.append("-k")
    return run(cmd + [zone]).strip()


def ds_of(key):
    with open(os.path.join(WORK, key + ".ds")) as f:
        return " ".join(l.strip() for l in f if not l.startswith(";"))


def dnskey_of(key):
    with open(os.path.join(WORK, key + ".key")) as f:
        return " ".join(l.strip() for l in f if not l.startswith(";"))


def sign(fname, keys, flags=VALID, extra=()):
    run(["ldns-signzone"] + list(flags) + list(extra) +
        ["-f", fname + ".signed", fname] + list(keys))
    return fname + ".signed"


def write(fname, text):
    with open(os.path.join(WORK, fname), "w") as f:
        f.write(text)


def body(zone, n, extra=""):
    return (f"$ORIGIN {zone}\n$TTL 3600\n"
            f"@ IN SOA ns hostmaster 1 3600 900 604800 300\n"
            f"@ IN NS ns\nns IN A 198.51.100.{n}\n"
            "www IN A 192.0.2.1\nwww IN TXT \"hello\"\n"
            "*.wild IN A 192.0.2.7\nx.ent IN A 192.0.2.9\n" + extra)


# zone key -> (name, server number); filled by build()
ZONES = {}
SERVE = {}          # server number -> [(zone name, file)]
PARENT = []         # delegation lines for vtest.
ROOT_DS = ROOT_KEY = None
ROOT_KSK_TAG = ROOT_KSK2_TAG = None


def key_tag(key):
    return int(key.split("+")[-1])


def edit_file(src, dst, fn):
    with open(os.path.join(WORK, src)) as f:
        lines = f.read().splitlines()
    with open(os.path.join(WORK, dst), "w") as f:
        f.write("\n".join(fn(lines)) + "\n")
    return dst


def leaf(key, n, alg="ECDSAP256SHA256", bits=None, extra="", signflags=VALID,
         nsec3=(), ds="normal", post=None, signed=True, more_keys=0):
    zone = key + ".vtest."
    ZONES[key] = (zone, n)
    fname = zone + "zone"
    write(fname, body(zone, n, extra))
    PARENT.append(f"{zone} IN NS ns.{zone}\nns.{zone} IN A 198.51.100.{n}")
    if not signed:
        SERVE.setdefault(n, []).append((zone, fname))
        return
    ksk = keygen(zone, alg, bits, ksk=True)
    zsk = keygen(zone, alg, bits)
    keys = [ksk, zsk]
    for i in range(more_keys):
        keys.append(keygen(zone, alg, bits, ksk=(i == 0)))
    out = sign(fname, keys, signflags, nsec3)
    if post:
        out = post(out, keys)
    SERVE.setdefault(n, []).append((zone, out))
    if ds == "normal":
        PARENT.append(ds_of(ksk))
    elif callable(ds):
        PARENT.append(ds(keys))


def grep_out(pattern):
    rx = re.compile(pattern)
    return lambda lines: [l for l in lines if not rx.search(l)]


def build():
    global ROOT_DS, ROOT_KEY, ROOT_KSK_TAG, ROOT_KSK2_TAG
    sec_extra = ("cname IN CNAME www.n3.vtest.\n"
                 "cname2 IN CNAME www.insec.vtest.\n"
                 "cnamenx IN CNAME nx.n3s.vtest.\n"
                 "cnamebog IN CNAME www.expired.vtest.\n"
                 "cnamesec IN CNAME www\n"
                 "dn IN DNAME n3.vtest.\n"
                 "dnin IN DNAME insec.vtest.\n"
                 "dnloc IN DNAME sec.vtest.\n"
                 "dnz 0 IN DNAME sec.vtest.\n")
    leaf("sec", 10, extra=sec_extra)
    leaf("n3", 11, alg="RSASHA256", bits=1024,
         extra="unsigned IN NS ns.unsigned\n"
               "ns.unsigned IN A 198.51.100.12\n"
               "cnamenxsec IN CNAME nxb.sec.vtest.\n",
         nsec3=["-n", "-t", "0", "-s", "aabbccdd", "-p"])
    ZONES["unsigned.n3"] = ("unsigned.n3.vtest.", 12)
    write("unsigned.n3.vtest.zone", body("unsigned.n3.vtest.", 12))
    SERVE.setdefault(12, []).append(("unsigned.n3.vtest.",
                                     "unsigned.n3.vtest.zone"))
    leaf("n3s", 17, nsec3=["-n", "-t", "0", "-s", "beef"])
    leaf("n3hi", 13, nsec3=["-n", "-t", "200", "-s", "0102"])
    leaf("insec", 14, signed=False,
         extra="cname IN CNAME www.sec.vtest.\n")
    # a DS of an algorithm no validator knows (253, private): insecure
    leaf("unsup", 15, ds=lambda keys: re.sub(
        r"(IN\s+DS\s+\d+\s+)13(\s)", r"\g<1>253\2", ds_of(keys[0])))
    # a DS of a digest type petrel does not support (3, GOST): insecure
    leaf("dsdig", 16, ds=lambda keys: re.sub(
        r"(IN\s+DS\s+\d+\s+\d+\s+)2\s+\S+$", r"\g<1>3 " + "ab" * 32,
        ds_of(keys[0])))
    leaf("expired", 20, signflags=EXPIRED)
    leaf("notyet", 21, signflags=NOTYET)

    # www A signed by a key that is not in the DNSKEY set
    def wrongkey(out, keys):
        zone = "wrongkey.vtest."
        other = keygen(zone, "ECDSAP256SHA256")
        alt = sign(zone + "zone", [keys[0], other], VALID) + ".2"
        os.rename(os.path.join(WORK, zone + "zone.signed"),
                  os.path.join(WORK, alt))
        # (the first signing was moved away by sign(): sign it again)
        good = sign(zone + "zone", keys, VALID)
        rx = re.compile(r"^www\.wrongkey\.vtest\.\s+\d+\s+IN\s+RRSIG\s+A\s")
        with open(os.path.join(WORK, alt)) as f:
            alt_sig = [l for l in f.read().splitlines() if rx.search(l)]
        return edit_file(good, zone + "zone.s2",
                         lambda ls: [l for l in ls if not rx.search(l)] +
                         alt_sig)
    leaf("wrongkey", 22, post=wrongkey)
    leaf("badds", 23, ds=lambda keys: ds_of(
        keygen("badds.vtest.", "ECDSAP256SHA256", ksk=True)))
    leaf("stripped", 24, post=lambda out, keys: edit_file(
        out, "stripped.vtest.zone.s2",
        grep_out(r"^www\.stripped\.vtest\.\s+\d+\s+IN\s+RRSIG\s+A\s")))
    leaf("tampered", 25, extra="short 5 IN A 192.0.2.1\n",
         post=lambda out, keys: edit_file(
        out, "tampered.vtest.zone.s2",
        lambda ls: [re.sub(r"^((?:www|short)\.tampered\.vtest\.\s+\d+\s+IN"
                           r"\s+A\s+)192\.0\.2\.1$", r"\g<1>192.0.2.66", l)
                    for l in ls]))
    # two KSKs (one a new key) and an extra ZSK: the DS names both KSKs
    leaf("roll", 27, more_keys=2,
         ds=lambda keys: ds_of(keys[0]) + "\n" + ds_of(keys[2]))
    # the parent's DS names only the new KSK
    leaf("rollnew", 28, more_keys=1, ds=lambda keys: ds_of(keys[2]))
    # signed with two algorithms (8 and 13), a DS for each KSK: for
    # harden-algo-downgrade (a scenario's edit strips the alg 13 RRSIGs)
    def twoalg(out, keys):
        z = "twoalg.vtest."
        k8 = [keygen(z, "RSASHA256", 1024, ksk=True),
              keygen(z, "RSASHA256", 1024)]
        TWOALG_KSK8.append(k8[0])
        return sign(z + "zone", keys + k8, VALID)
    leaf("twoalg", 29, post=twoalg,
         ds=lambda keys: ds_of(keys[0]) + "\n" + ds_of(TWOALG_KSK8[0]))
    for i, (a, bits) in enumerate([("RSASHA1", 1024),
                                   ("RSASHA1-NSEC3-SHA1", 1024),
                                   ("RSASHA512", 1024),
                                   ("ECDSAP384SHA384", None),
                                   ("ED25519", None), ("ED448", None)]):
        num = {"RSASHA1": 5, "RSASHA1-NSEC3-SHA1": 7, "RSASHA512": 10,
               "ECDSAP384SHA384": 14, "ED25519": 15, "ED448": 16}[a]
        leaf(f"alg{num}", 30 + i, alg=a, bits=bits)

    # vtest.
    zone = "vtest."
    ZONES["test"] = (zone, 2)
    write("vtest.zone", body(zone, 2, "\n".join(PARENT) + "\n"))
    ksk = keygen(zone, "RSASHA256", 1024, ksk=True)
    zsk = keygen(zone, "RSASHA256", 1024)
    SERVE.setdefault(2, []).append((zone, sign("vtest.zone", [ksk, zsk])))
    test_ds = ds_of(ksk)
    # the root
    ZONES["root"] = (".", 1)
    write("root.zone", "$ORIGIN .\n$TTL 3600\n"
          ". IN SOA ns.root. hostmaster.root. 1 3600 900 604800 300\n"
          ". IN NS ns.root.\nns.root. IN A 198.51.100.1\n"
          "vtest. IN NS ns.vtest.\nns.vtest. IN A 198.51.100.2\n" +
          test_ds + "\n")
    ksk = keygen(".", "ECDSAP256SHA256", ksk=True)
    zsk = keygen(".", "ECDSAP256SHA256")
    SERVE.setdefault(1, []).append((".", sign("root.zone", [ksk, zsk])))
    ROOT_DS = ds_of(ksk)
    ROOT_KEY = dnskey_of(ksk)
    # a KSK rollover of the root for RFC 5011: the same zone with the
    # old and a new KSK (both sign the DNSKEY set; NSD 101), then with
    # the new KSK only (NSD 102)
    ksk2 = keygen(".", "ECDSAP256SHA256", ksk=True)
    for n, keys in ((101, [ksk, ksk2, zsk]), (102, [ksk2, zsk])):
        shutil.copy(os.path.join(WORK, "root.zone"),
                    os.path.join(WORK, f"root{n}.zone"))
        SERVE.setdefault(n, []).append((".", sign(f"root{n}.zone", keys)))
    ROOT_KSK_TAG = key_tag(ksk)
    ROOT_KSK2_TAG = key_tag(ksk2)


NSD_PROCS = []


def nsd_start():
    for n, zones in SERVE.items():
        d = os.path.join(WORK, f"nsd{n}")
        os.mkdir(d)
        conf = [f"server:", f"  ip-address: 127.0.30.{n}", f"  port: {PORT}",
                '  username: ""', '  chroot: ""', f'  zonesdir: "{WORK}"',
                f'  pidfile: "{d}/nsd.pid"', '  database: ""',
                f'  zonelistfile: "{d}/zone.list"',
                f'  xfrdfile: "{d}/xfrd.state"', f'  xfrdir: "{d}"',
                f'  logfile: "{d}/nsd.log"', "  verbosity: 0",
                "  server-count: 1", "  reuseport: no", "  round-robin: no",
                "  refuse-any: no", "  rrl-ratelimit: 0",
                "remote-control:", "  control-enable: no"]
        for zn, zf in zones:
            conf += ["zone:", f'  name: "{zn}"', f'  zonefile: "{zf}"']
        with open(os.path.join(d, "nsd.conf"), "w") as f:
            f.write("\n".join(conf) + "\n")
        NSD_PROCS.append(subprocess.Popen(
            [NSD, "-d", "-c", os.path.join(d, "nsd.conf")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for n, zones in SERVE.items():
        for _ in range(100):
            r = subprocess.run(["dig", "+time=1", "+tries=1", "+norec",
                                f"@127.0.30.{n}", "-p", str(PORT),
                                zones[0][0], "SOA"], capture_output=True,
                               text=True)
            if "status: NOERROR" in r.stdout:
                break
            time.sleep(0.1)
        else:
            sys.exit(f"NSD {n} does not answer")


def nsd_stop():
    for p in NSD_PROCS:
        p.terminate()
    for p in NSD_PROCS:
        p.wait()


RECORDED = {}


def record(n, qname, qtype):
    """the answer of server n: dict rcode, aa, answer, authority,
    additional (lists of zone-file lines)"""
    k = (n, qname.lower(), qtype)
    if k in RECORDED:
        return RECORDED[k]
    out = run(["dig", "+norec", "+dnssec", "+bufsize=4096", "+time=2",
               "+tries=1", "+nocmd", "+nostats", "+noquestion", "+nottlunits",
               f"@127.0.30.{n}", "-p", str(PORT), qname, qtype])
    res = {"rcode": "NOERROR", "aa": False, "answer": [], "authority": [],
           "additional": []}
    sec = None
    for line in out.splitlines():
        m = re.search(r"status: ([A-Z]+)", line)
        if m:
            res["rcode"] = m.group(1)
        m = re.match(r";; flags: ([a-z ]*);", line)
        if m:
            res["aa"] = "aa" in m.group(1).split()
        m = re.match(r";; (ANSWER|AUTHORITY|ADDITIONAL) SECTION:", line)
        if m:
            sec = m.group(1).lower()
            continue
        if line.startswith(";") or not line.strip():
            if line.startswith(";; OPT"):
                sec = None
            continue
        if sec:
            res[sec].append(re.sub(r"\s+", " ", line.strip()))
    RECORDED[k] = res
    return res


def is_dnssec(line):
    return re.search(r"\sIN\s+(RRSIG|NSEC|NSEC3)\s", line) is not None


class Q:
    """one client query and the answer it must get"""

    def __init__(self, name, qtype="A", do=True, cd=False, ad_q=False,
                 rcode="NOERROR", ad=None, ans=(), ede=None, lines=(),
                 step_time=0, check=True, at_step=0, edited=True,
                 files=(), sent=()):
        self.name, self.qtype, self.do, self.cd, self.ad_q = \
            name, qtype, do, cd, ad_q
        self.rcode, self.ans, self.ede, self.lines = rcode, ans, ede, lines
        self.ad = ad
        self.step_time = step_time
        self.check = check
        self.at_step = at_step
        self.edited = edited
        self.files = files      # (file, keytag, text) checked after it
        self.sent = sent        # (name, type) upstream questions sent


class S:
    """a scenario: file name, title, queries, config lines, edits"""

    def __init__(self, name, title, queries, conf=(), anchor="ds",
                 edit=None, ranges_until=1000, comment="", phases=(),
                 files=(), keep=()):
        self.name, self.title, self.queries = name, title, queries
        self.conf, self.anchor, self.edit = conf, anchor, edit
        self.ranges_until = ranges_until
        self.comment = comment
        # (n, qname, qtype, phase), in order; keep: (n, qname, qtype)
        # answers recorded even when this scenario does not ask them,
        # because another generator (gen_val_restart_rpl.py,
        # gen_val_keytrap_rpl.py) builds its scenarios from this file's
        # ranges and its resolver asks them
        self.needed = [(n, qn, qt, None) for (n, qn, qt) in keep]
        # phases: (first step, last step, {server: recorded from}): the
        # server answers as another NSD during those steps
        self.phases = phases
        # files: (name, text) for FILE_BEGIN (the runner's @TMPDIR@)
        self.files = files


def zone_server(key):
    return ZONES[key][1]


def expected_answer(q, s):
    """the answer section lines the client must get"""
    out = []
    for a in q.ans:
        if isinstance(a, str):
            out.append(a)
            continue
        key, qname, qtype = a
        n = zone_server(key)
        r = record(n, qname, qtype)
        if s.edit and q.edited:
            r = s.edit(n, qname, qtype, {k: (list(v) if isinstance(v, list)
                                             else v) for k, v in r.items()})
        out += r["answer"]
    if not q.do:
        out = [l for l in out if not is_dnssec(l) or
               re.search(r"\sIN\s+" + q.qtype + r"\s", l)]
    return out


def entry_text(qname, qtype, r):
    flags = "QR" + (" AA" if r["aa"] else "")
    t = ["ENTRY_BEGIN", "MATCH opcode qtype qname", "ADJUST copy_id",
         f"REPLY {flags} {r['rcode']} DO", "SECTION QUESTION",
         f"{qname} IN {qtype}"]
    for sec in ("answer", "authority", "additional"):
        if r[sec]:
            t.append("SECTION " + sec.upper())
            t += r[sec]
    t.append("ENTRY_END")
    return "\n".join(t)


def scenario_text(s):
    t = []
    t += ["; " + l if l else ";" for l in
          (s.comment or s.title).splitlines()]
    t.append("; made by tests/gen_val_rpl.py: signed data from "
             "ldns-signzone, answers recorded from NSD")
    t.append("server:")
    t.append("\tqname-minimisation: no")
    if s.anchor == "ds":
        t.append(f'\ttrust-anchor: "{ROOT_DS}"')
    elif s.anchor == "dnskey":
        t.append(f'\ttrust-anchor: "{ROOT_KEY}"')
    elif s.anchor:
        t.append(f'\ttrust-anchor: "{s.anchor}"')
    for c in s.conf:
        t.append("\t" + c)
    for name, text in s.files:
        t += [f"FILE_BEGIN {name}", text, "FILE_END"]
    t += ["stub-zone:", '\tname: "."', "\tstub-addr: 198.51.100.1",
          "CONFIG_END", "", f"SCENARIO_BEGIN {s.title}", ""]
    by_server = {}
    for (n, qname, qtype, ph) in s.needed:
        by_server.setdefault((n, -1 if ph is None else ph), []).append(
            (qname, qtype))
    for (n, ph) in sorted(by_server):
        if ph < 0:
            first, last, src = 0, s.ranges_until, n
        else:
            first, last, m = s.phases[ph]
            src = m[n]
        t.append(f"RANGE_BEGIN {first} {last}")
        t.append(f"\tADDRESS 198.51.100.{n}")
        for qname, qtype in by_server[(n, ph)]:
            r = record(src, qname, qtype)
            if s.edit:
                r = s.edit(n, qname, qtype, {k: (list(v) if
                           isinstance(v, list) else v)
                           for k, v in r.items()})
            t.append(entry_text(qname, qtype, r))
        t += ["RANGE_END", ""]
    step = 1
    for q in s.queries:
        # the time passes at the query's step, so that the RFC 5011
        # probe timer fires while the servers of that step answer
        if q.at_step:
            step = q.at_step
        if q.step_time:
            t += [f"STEP {step} TIME_PASSES ELAPSE {q.step_time}", ""]
            step += 1
        flags = "RD" + (" CD" if q.cd else "") + (" AD" if q.ad_q else "") + \
            (" DO" if q.do else "")
        t += [f"STEP {step} QUERY", "ENTRY_BEGIN", f"REPLY {flags}",
              "SECTION QUESTION", f"{q.name} IN {q.qtype}", "ENTRY_END", ""]
        step += 1
        if not q.check:
            continue
        ad = q.ad
        rf = "QR RD RA" + (" AD" if ad else "") + (" CD" if q.cd else "") + \
            f" {q.rcode}" + (" DO" if q.do else "")
        m = "MATCH flags rcode question answer"
        if q.ede is not None:
            m += f" ede={q.ede}"
        t += [f"STEP {step} CHECK_ANSWER", "ENTRY_BEGIN", m, f"REPLY {rf}",
              "SECTION QUESTION", f"{q.name} IN {q.qtype}"]
        ans = expected_answer(q, s) + list(q.lines)
        if ans:
            t.append("SECTION ANSWER")
            t += ans
        t += ["ENTRY_END", ""]
        step += 1
        for (sname, stype) in q.sent:
            t += [f"STEP {step} CHECK_SENT {sname} {stype}", ""]
            step += 1
        for (fname, tag, text) in q.files:
            t += [f"STEP {step} CHECK_FILE {fname} {tag} {text}", ""]
            step += 1
    t.append("SCENARIO_END")
    return "\n".join(t) + "\n"


MISSING = re.compile(r"step (\d+): no entry answers the query (\S+) (\S+) "
                     r"to 198\.51\.100\.(\d+)")


def make(s):
    path = os.path.join(TESTDATA, f"val_{s.name}.rpl")
    for _ in range(60):
        with open(path, "w") as f:
            f.write(scenario_text(s))
        # the real, signed priming answer is recorded too (the runner
        # would answer the priming query itself, unsigned)
        r = subprocess.run([REPLAY, path], capture_output=True, text=True,
                           env=dict(os.environ, REPLAY_NO_AUTO_PRIME="1"))
        m = MISSING.search(r.stdout)
        if m:
            n, stepno = int(m.group(4)), int(m.group(1))
            ph = None
            for i, (first, last, mp) in enumerate(s.phases):
                if first <= stepno <= last and n in mp:
                    ph = i
            need = (n, m.group(2).lower(), m.group(3), ph)
            if need in s.needed:
                break
            s.needed.append(need)
            continue
        if r.returncode != 0:
            print(f"val_{s.name}.rpl: the scenario fails:\n{r.stdout}")
            return False
        print(f"val_{s.name}.rpl: ok ({len(s.needed)} upstream answers)")
        return True
    print(f"val_{s.name}.rpl: cannot complete the ranges:\n{r.stdout}")
    return False


def main():
    sys.path.insert(0, HERE)
    import gen_val_scenarios
    build()
    nsd_start()
    try:
        todo = gen_val_scenarios.scenarios(sys.modules[__name__])
        if len(sys.argv) > 1:
            todo = [s for s in todo if s.name in sys.argv[1:]]
        bad = [s.name for s in todo if not make(s)]
    finally:
        nsd_stop()
        shutil.rmtree(WORK, ignore_errors=True)
    if bad:
        print("failed: " + " ".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()
