#!/usr/bin/env python3
"""tests/gen_val_keytrap_rpl.py - (re)generate the KeyTrap replay
scenarios testdata/val_keytrap_sigs_*.rpl and val_keytrap_nsec_count.rpl
(issue 29, section 1).

Nothing is signed here: the signed data is taken from scenarios that
tests/gen_val_rpl.py made (zones signed with ldns-signzone, answers
recorded from NSD), and what is added is never a valid signature:

  - val_keytrap_sigs_*: from testdata/val_bogus_ttl.rpl, the answer
    www.tampered.vtest. A with the address the zone signed (192.0.2.1, so
    its recorded RRSIG verifies) and, before that RRSIG, K copies of it
    whose signature bytes are pseudo-random (fixed seed) and whose key
    tag is kept: each names the zone's ZSK, so each costs a verification.
    With K = 7 the good RRSIG is the 8th verification of the RRset
    (VAL_MAX_RRSET_VERIFY): secure. With K = 8 the RRset's limit is spent
    before it: SERVFAIL, EDE 6 (before the limit: secure after 9).
  - val_keytrap_nsec_count: from testdata/val_nxdomain_nsec.rpl, the
    NXDOMAIN of nx.sec.vtest. with its two NSEC records (and their RRSIGs)
    repeated 9 times: 18 NSEC records, more than any proof needs (16 are
    looked at, VAL_MAX_NREC): SERVFAIL, EDE 6 (before: the duplicates were
    skipped and the answer was secure).

The servers answer from RANGE blocks as recorded; only the answer to the
question under test is replaced. Usage: python3 tests/gen_val_keytrap_rpl.py
"""
import base64
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(os.path.dirname(HERE), "testdata")
Q = "www.tampered.vtest."


def read(name):
    with open(os.path.join(TESTDATA, name)) as f:
        return f.read()


def bogus_copies(sig_line, k, seed):
    """k copies of an RRSIG line with made-up signature bytes"""
    f = sig_line.split(" ")
    # owner ttl IN RRSIG type alg labels ttl expi incep tag signer sig...
    head, sig = f[:12], base64.b64decode("".join(f[12:]))
    rnd = random.Random(seed)
    out = []
    for _ in range(k):
        b = bytes(rnd.getrandbits(8) for _ in sig)
        out.append(" ".join(head + [base64.b64encode(b).decode()]))
    return out


def sigs_scenario(k):
    src = read("val_bogus_ttl.rpl")
    anchor = re.search(r"\ttrust-anchor: .*\n", src).group(0)
    www = re.search(r"(ENTRY_BEGIN\n(?:(?!ENTRY_END).)*?\n" +
                    re.escape(Q) + r" IN A\nSECTION ANSWER\n)(.*?)\n"
                    r"(SECTION AUTHORITY)", src, re.S)
    lines = www.group(2).splitlines()
    a = [l.replace("192.0.2.66", "192.0.2.1") for l in lines
         if " IN A " in l]
    sig = [l for l in lines if " IN RRSIG A " in l]
    assert len(a) == 1 and len(sig) == 1
    answer = a + bogus_copies(sig[0], k, 29000 + k) + sig
    body = src[:www.start(2)] + "\n".join(answer) + "\n" + src[www.end(2) + 1:]
    body = body[body.index("RANGE_BEGIN"):body.index("STEP 1 QUERY")]
    secure = k < 8
    title = (f"KeyTrap: {k} RRSIGs with made-up signatures by the zone's "
             f"ZSK before the good one: " +
             ("the good one is the 8th verification of the RRset: secure"
              if secure else
              "the RRset's 8 verifications are spent before the good one: "
              "SERVFAIL, EDE 6 (was secure after 9 verifications)"))
    t = [f"; {title}",
         "; made by tests/gen_val_keytrap_rpl.py from val_bogus_ttl.rpl "
         "(signed data from ldns-signzone, answers recorded from NSD)",
         "server:", "\tqname-minimisation: no", anchor.rstrip("\n"),
         "stub-zone:", '\tname: "."', "\tstub-addr: 198.51.100.1",
         "CONFIG_END", "", f"SCENARIO_BEGIN {title}", "", body.rstrip(),
         "", "STEP 1 QUERY", "ENTRY_BEGIN", "REPLY RD DO",
         "SECTION QUESTION", f"{Q} IN A", "ENTRY_END", "",
         "STEP 2 CHECK_ANSWER", "ENTRY_BEGIN"]
    if secure:
        t += ["MATCH flags rcode question answer",
              "REPLY QR RD RA AD NOERROR DO", "SECTION QUESTION",
              f"{Q} IN A", "SECTION ANSWER"] + answer
    else:
        t += ["MATCH flags rcode question answer ede=6",
              "REPLY QR RD RA SERVFAIL DO", "SECTION QUESTION", f"{Q} IN A"]
    t += ["ENTRY_END", "", "SCENARIO_END", ""]
    name = "val_keytrap_sigs_%s.rpl" % ("within" if secure else "limit")
    with open(os.path.join(TESTDATA, name), "w") as f:
        f.write("\n".join(t))
    print(name)


def nsec_count_scenario():
    src = read("val_nxdomain_nsec.rpl")
    m = re.search(r"(REPLY QR AA NXDOMAIN DO\nSECTION QUESTION\n"
                  r"nx\.sec\.vtest\. IN A\nSECTION AUTHORITY\n)(.*?)\n"
                  r"(ENTRY_END)", src, re.S)
    lines = m.group(2).splitlines()
    nsec = [l for l in lines if " IN NSEC " in l or " IN RRSIG NSEC " in l]
    rest = [l for l in lines if l not in nsec]
    assert len(nsec) == 4
    auth = nsec * 9 + rest
    body = src[:m.start(2)] + "\n".join(auth) + src[m.end(2):]
    title = ("KeyTrap: a NXDOMAIN whose authority section repeats its two "
             "NSEC records 9 times (18, more than the 16 a proof may look "
             "at): SERVFAIL, EDE 6 (was NXDOMAIN AD)")
    body = re.sub(r"^; .*\n; made by .*\n",
                  f"; {title}\n; made by tests/gen_val_keytrap_rpl.py from "
                  "val_nxdomain_nsec.rpl (signed data from ldns-signzone, "
                  "answers recorded from NSD)\n", body)
    body = re.sub(r"SCENARIO_BEGIN .*\n", f"SCENARIO_BEGIN {title}\n", body)
    body = re.sub(r"(STEP \d+ CHECK_ANSWER\nENTRY_BEGIN\n)MATCH ([^\n]*)\n"
                  r"REPLY QR RD RA AD NXDOMAIN DO\n",
                  r"\1MATCH \2 ede=6\nREPLY QR RD RA SERVFAIL DO\n", body)
    assert "ede=6" in body
    with open(os.path.join(TESTDATA, "val_keytrap_nsec_count.rpl"), "w") as f:
        f.write(body)
    print("val_keytrap_nsec_count.rpl")


if __name__ == "__main__":
    sigs_scenario(7)
    sigs_scenario(8)
    nsec_count_scenario()
