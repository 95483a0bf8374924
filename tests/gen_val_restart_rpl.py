#!/usr/bin/env python3
"""tests/gen_val_restart_rpl.py - (re)generate the val-max-restart replay
scenarios testdata/val_restart_*.rpl (issue 16).

The signed data is not made here: it is taken from testdata/
val_bogus_ttl.rpl (made by tests/gen_val_rpl.py from zones signed with
ldns-signzone and answers recorded from NSD). There, tampered.vtest. is
signed with "www A 192.0.2.1" and served with the address edited to
192.0.2.66 after signing, so the recorded RRSIG fits 192.0.2.1 only: the
answer with .66 is bogus (EDE 6), the same answer with .1 is secure.

What is edited here, none of it signed data:
  - the referral of vtest. to tampered.vtest. names more servers: the
    first, ns.tampered.vtest. (198.51.100.25), with its glue as recorded;
    the others, nsK.vtest. (198.51.100.24+K), without glue, so the
    resolver looks their addresses up (unsigned A answers of vtest.'s
    server, not validated: sub-queries) only when it needs another server.
    The first server asked is therefore always .25, whatever the random
    numbers: no scenario depends on the runner's seed;
  - the answers to www.tampered.vtest. A are given by hand (REPLY steps,
    answer section only, as recorded, with .66 or .1), so every query to
    every server is seen and counted (CHECK_OUT_QUERY / CHECK_SENT with
    ADDRESS and COUNT). No range answers that question from those
    servers, so a query the scenario does not expect is left pending,
    which fails it (the runner's manual mode): "exactly N tries" is
    checked, not only "at least".

Usage: python3 tests/gen_val_restart_rpl.py   (writes the files)
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(os.path.dirname(HERE), "testdata")
SRC = os.path.join(TESTDATA, "val_bogus_ttl.rpl")
Q = "www.tampered.vtest."


def ranges(text):
    """address -> list of entry texts, from the RANGE blocks"""
    out = {}
    for m in re.finditer(r"RANGE_BEGIN[^\n]*\n\tADDRESS (\S+)\n(.*?)"
                         r"RANGE_END", text, re.S):
        out[m.group(1)] = re.findall(r"ENTRY_BEGIN\n.*?ENTRY_END",
                                     m.group(2), re.S)
    return out


def section(entry, name):
    m = re.search(r"SECTION " + name + r"\n(.*?)(?=SECTION |ENTRY_END)",
                  entry, re.S)
    return m.group(1).splitlines() if m else []


def asks(entry):
    return section(entry, "QUESTION")[0].split()


SRC_TEXT = open(SRC).read()
R = ranges(SRC_TEXT)
ANCHOR = re.search(r"\ttrust-anchor: .*\n", SRC_TEXT).group(0)
WWW25 = [e for e in R["198.51.100.25"] if asks(e)[0] == Q][0]
BOGUS = section(WWW25, "ANSWER")
GOOD = [re.sub(r"192\.0\.2\.66$", "192.0.2.1", l) for l in BOGUS]
assert BOGUS != GOOD


def addr(k):
    """the address of tampered.vtest.'s server k (1 = ns.tampered)"""
    return f"198.51.100.{24 + k}"


def ns_name(k):
    return "ns.tampered.vtest." if k == 1 else f"ns{k}.vtest."


def range_text(address, entries, extra_addrs=()):
    t = ["RANGE_BEGIN 0 1000", "\tADDRESS " + address]
    t += ["\tADDRESS " + a for a in extra_addrs]
    return "\n".join(t + entries + ["RANGE_END", ""])


def vtest_entries(nservers):
    out = []
    for e in R["198.51.100.2"]:
        if asks(e)[0] == Q:
            # the referral: the other servers' NS records (unsigned)
            extra = "".join(f"tampered.vtest. 3600 IN NS {ns_name(k)}\n"
                            for k in range(2, nservers + 1))
            e = e.replace("SECTION ADDITIONAL\n",
                          extra + "SECTION ADDITIONAL\n")
        out.append(e)
    for k in range(2, nservers + 1):
        out.append("\n".join([
            "ENTRY_BEGIN", "MATCH opcode qtype qname", "ADJUST copy_id",
            "REPLY QR AA NOERROR", "SECTION QUESTION",
            f"{ns_name(k)} IN A", "SECTION ANSWER",
            f"{ns_name(k)} 3600 IN A {addr(k)}", "ENTRY_END"]))
    return out


def query(step):
    return "\n".join([f"STEP {step} QUERY", "ENTRY_BEGIN", "REPLY RD DO",
                      "SECTION QUESTION", f"{Q} IN A", "ENTRY_END", ""])


def out_query(step, k=None):
    a = f" ADDRESS {addr(k)}" if k else ""
    return "\n".join([f"STEP {step} CHECK_OUT_QUERY{a}", "ENTRY_BEGIN",
                      "MATCH opcode qtype qname", "SECTION QUESTION",
                      f"{Q} IN A", "ENTRY_END", ""])


def reply(step, answer, k=None):
    a = f" ADDRESS {addr(k)}" if k else ""
    return "\n".join([f"STEP {step} REPLY{a}", "ENTRY_BEGIN",
                      "MATCH opcode qtype qname", "ADJUST copy_id",
                      "REPLY QR AA NOERROR DO", "SECTION QUESTION",
                      f"{Q} IN A", "SECTION ANSWER"] + answer +
                     ["ENTRY_END", ""])


def check_secure(step):
    return "\n".join([f"STEP {step} CHECK_ANSWER", "ENTRY_BEGIN",
                      "MATCH flags rcode question answer",
                      "REPLY QR RD RA AD NOERROR DO", "SECTION QUESTION",
                      f"{Q} IN A", "SECTION ANSWER"] + GOOD +
                     ["ENTRY_END", ""])


def check_insecure_bogus(step):
    """val-permissive-mode: the bogus answer, without AD"""
    return "\n".join([f"STEP {step} CHECK_ANSWER", "ENTRY_BEGIN",
                      "MATCH flags rcode question answer",
                      "REPLY QR RD RA NOERROR DO", "SECTION QUESTION",
                      f"{Q} IN A", "SECTION ANSWER"] + BOGUS +
                     ["ENTRY_END", ""])


def check_bogus(step):
    return "\n".join([f"STEP {step} CHECK_ANSWER", "ENTRY_BEGIN",
                      "MATCH flags rcode question answer ede=6",
                      "REPLY QR RD RA SERVFAIL DO", "SECTION QUESTION",
                      f"{Q} IN A", "ENTRY_END", ""])


def sent(step, count, k):
    """exactly count queries for the question went to server k of
    tampered.vtest. (k 0: the root's server, -1: vtest.'s)"""
    a = {0: "198.51.100.1", -1: "198.51.100.2"}.get(k) or addr(k)
    return f"STEP {step} CHECK_SENT {Q} A ADDRESS {a} COUNT {count}\n"


def scenario(name, title, nservers, conf, steps):
    text = [f"; {title}",
            "; made by tests/gen_val_restart_rpl.py from the signed data of "
            "val_bogus_ttl.rpl",
            "server:", "\tqname-minimisation: no", ANCHOR.rstrip("\n")]
    text += ["\t" + c for c in conf]
    text += ["stub-zone:", '\tname: "."', "\tstub-addr: 198.51.100.1",
             "CONFIG_END", "", f"SCENARIO_BEGIN {title}", ""]
    text.append(range_text("198.51.100.1", R["198.51.100.1"]))
    text.append(range_text("198.51.100.2", vtest_entries(nservers)))
    # the servers of tampered.vtest.: DNSKEY from the ranges, www A by hand
    text.append(range_text(addr(1), [e for e in R["198.51.100.25"]
                                     if asks(e)[0] != Q],
                           [addr(k) for k in range(2, nservers + 1)]))
    text += steps
    text.append("SCENARIO_END\n")
    with open(os.path.join(TESTDATA, f"val_restart_{name}.rpl"), "w") as f:
        f.write("\n".join(text))


# 1. one server bogus, the other good: the client gets the good answer
scenario("secure", "val-max-restart (default 5): the first server's answer "
         "is bogus, the query is restarted without it, the second server's "
         "answer is secure (AD)", 2, [],
         [query(1), out_query(2, 1), reply(3, BOGUS, 1), out_query(4, 2),
          reply(5, GOOD, 2), check_secure(6), sent(7, 1, 1), sent(8, 1, 2),
          # the good answer is the one cached: asked again, no query
          query(9), check_secure(10), sent(11, 1, 1), sent(12, 1, 2)])

# 2. val-max-restart: 0: the first bogus answer is final
scenario("zero", "val-max-restart: 0: the first bogus answer is final "
         "(SERVFAIL, EDE 6); the second server is never asked", 2,
         ["val-max-restart: 0"],
         [query(1), out_query(2, 1), reply(3, BOGUS, 1), check_bogus(4),
          sent(5, 1, 1), sent(6, 0, 2)])

# 3. every server bogus: N + 1 tries, one per server, then bogus,
# remembered for val-bogus-ttl: the same question asks nobody
scenario("all_bogus", "val-max-restart: 2 and three servers, all bogus: "
         "exactly 3 tries (N + 1), one per server, then SERVFAIL (EDE 6), "
         "remembered: the next query asks nobody", 3,
         ["val-max-restart: 2"],
         [query(1), out_query(2, 1), reply(3, BOGUS, 1), out_query(4),
          reply(5, BOGUS), out_query(6), reply(7, BOGUS), check_bogus(8),
          sent(9, 1, 0), sent(10, 1, 1), sent(11, 1, 2), sent(12, 1, 3),
          query(13), check_bogus(14), sent(15, 1, 1), sent(16, 1, 2),
          sent(17, 1, 3), sent(18, 1, 0)])

# 4. the restarts end before the servers: N + 1 tries and no more
scenario("limit", "val-max-restart: 1 and three servers, all bogus: "
         "exactly 2 tries (N + 1), then SERVFAIL (EDE 6)", 3,
         ["val-max-restart: 1"],
         [query(1), out_query(2, 1), reply(3, BOGUS, 1), out_query(4),
          reply(5, BOGUS), check_bogus(6), sent(7, 1, 1), sent(8, 1, 0),
          sent(9, 1, -1)])

# 5. the servers end before the restarts: every server once, then bogus
scenario("none_left", "val-max-restart (default 5) and two servers, both "
         "bogus: each is asked once, then no server is left: SERVFAIL "
         "(EDE 6), remembered: the next query asks nobody", 2, [],
         [query(1), out_query(2, 1), reply(3, BOGUS, 1), out_query(4, 2),
          reply(5, BOGUS, 2), check_bogus(6), sent(7, 1, 1), sent(8, 1, 2),
          sent(9, 2, 0), sent(10, 2, -1),
          query(11), check_bogus(12), sent(13, 1, 1), sent(14, 1, 2),
          sent(15, 2, 0)])

# 6. val-permissive-mode: the restarts are made all the same; when no
# server is left the last bogus answer is given, without AD
scenario("permissive", "val-permissive-mode and two servers, both bogus: "
         "each is asked once, then no server is left: the bogus answer "
         "without AD", 2, ["val-permissive-mode: yes"],
         [query(1), out_query(2, 1), reply(3, BOGUS, 1), out_query(4, 2),
          reply(5, BOGUS, 2), check_insecure_bogus(6), sent(7, 1, 1),
          sent(8, 1, 2)])

# 7. a bogus key chain is not restarted: val_badds.rpl (the DS matches no
# DNSKEY, EDE 9) with the queries counted: the answer's server is asked
# once and the resolution does not start again from the root
BADDS = open(os.path.join(TESTDATA, "val_badds.rpl")).read()
TITLE = ("a bogus key chain (the DS matches no DNSKEY) is final at once: "
         "SERVFAIL, EDE 9, no restart (the answer's server is asked once, "
         "the root once)")
BADDS = re.sub(r"^; .*\n; made by .*\n", f"; {TITLE}\n; made by tests/"
               "gen_val_restart_rpl.py from val_badds.rpl (tests/"
               "gen_val_rpl.py), the CHECK_SENT steps added\n", BADDS)
BADDS = re.sub(r"SCENARIO_BEGIN .*\n", f"SCENARIO_BEGIN {TITLE}\n", BADDS)
BADDS = BADDS.replace("SCENARIO_END", "".join([
    "STEP 3 CHECK_SENT www.badds.vtest. A ADDRESS 198.51.100.23 COUNT 1\n",
    "STEP 4 CHECK_SENT www.badds.vtest. A ADDRESS 198.51.100.1 COUNT 1\n",
    "\nSCENARIO_END"]))
with open(os.path.join(TESTDATA, "val_restart_keys_bogus.rpl"), "w") as f:
    f.write(BADDS)
