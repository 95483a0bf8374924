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

The key chain scenarios (val_restart_key_*, val_restart_ds_*) use the
same data: the answer is the good one from a range, and the DNSKEY set of
tampered.vtest. (or its DS set, from vtest.'s servers, a second one named
without glue in the root's referral) is given by hand, the bogus copy
being the recorded set with one base64 digit of its RRSIG's signature
changed. val_restart_keys_bogus.rpl is val_badds.rpl (its ranges recorded
by tests/gen_val_rpl.py, which must be run first when the validator asks
other questions) with the queries counted.

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
        # and no IPv6 address (NODATA): asked once its IPv4 one is
        # excluded, as Unbound asks the family an NS name lacks
        out.append("\n".join([
            "ENTRY_BEGIN", "MATCH opcode qtype qname", "ADJUST copy_id",
            "REPLY QR AA NOERROR", "SECTION QUESTION",
            f"{ns_name(k)} IN AAAA", "ENTRY_END"]))
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
            "server:", "\tqname-minimisation: no",
            "\ttarget-fetch-policy: \"0 0 0 0 0\"", ANCHOR.rstrip("\n")]
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

# 7. a bogus key chain with one server: val_badds.rpl (the DS matches no
# DNSKEY, EDE 9; its ranges recorded by tests/gen_val_rpl.py, with the
# questions the restart asks) with the queries counted. The DNSKEY set
# is asked again without badds.vtest.'s only server: its cached
# delegation has no other, so the fetch starts once from the top (the
# root, then vtest.'s server, whose referral names the same server
# only), finds no server left, and the first bogus verdict is final.
# The answer itself is not asked again (another copy of it cannot mend
# the keys), and the failure is remembered: asked again, nobody is asked.
BADDS = open(os.path.join(TESTDATA, "val_badds.rpl")).read()
TITLE = ("a bogus key chain (the DS matches no DNSKEY) and one server: the "
         "DNSKEY set is asked again without it, from the top, no server is "
         "left: SERVFAIL, EDE 9, remembered (the answer is not asked again)")
BADDS = re.sub(r"^; .*\n; made by .*\n", f"; {TITLE}\n; made by tests/"
               "gen_val_restart_rpl.py from val_badds.rpl (tests/"
               "gen_val_rpl.py), the CHECK_SENT steps added\n", BADDS)
BADDS = re.sub(r"SCENARIO_BEGIN .*\n", f"SCENARIO_BEGIN {TITLE}\n", BADDS)
BADDS_SENT = "".join([
    "CHECK_SENT www.badds.vtest. A ADDRESS 198.51.100.23 COUNT 1\n",
    "CHECK_SENT www.badds.vtest. A ADDRESS 198.51.100.1 COUNT 1\n",
    "CHECK_SENT badds.vtest. DNSKEY ADDRESS 198.51.100.23 COUNT 1\n",
    "CHECK_SENT badds.vtest. DNSKEY ADDRESS 198.51.100.1 COUNT 1\n",
    "CHECK_SENT badds.vtest. DNSKEY ADDRESS 198.51.100.2 COUNT 1\n",
    "CHECK_SENT badds.vtest. DNSKEY COUNT 3\n"])
AGAIN = re.search(r"STEP 1 QUERY\n.*?ENTRY_END\n\nSTEP 2 CHECK_ANSWER\n"
                  r".*?ENTRY_END\n", BADDS, re.S).group(0)
AGAIN = AGAIN.replace("STEP 1 ", "STEP 11 ").replace("STEP 2 ", "STEP 12 ")
BADDS = BADDS.replace("SCENARIO_END", "".join(
    [f"STEP {3 + i} {l}\n" for i, l in enumerate(BADDS_SENT.splitlines())] +
    ["\n", AGAIN, "\n"] +
    [f"STEP {13 + i} {l}\n" for i, l in enumerate(BADDS_SENT.splitlines())] +
    ["\nSCENARIO_END"]))
with open(os.path.join(TESTDATA, "val_restart_keys_bogus.rpl"), "w") as f:
    f.write(BADDS)


# 8. val-max-restart for the key chain: the DNSKEY set of tampered.vtest.
# is fetched by the validator's own sub-query; a server whose copy does
# not verify is left out and the set asked of another. The answer to
# www.tampered.vtest. A is the good one (192.0.2.1, as signed) from every
# server (a range); the DNSKEY answers are given by hand, so each fetch
# is seen, in order, and counted. The bogus copy is the recorded set with
# one base64 digit of its RRSIG's signature changed (EDE 6).
KZ = "tampered.vtest."
KEYS = [e for e in R["198.51.100.25"] if asks(e) == [KZ, "IN", "DNSKEY"]][0]


def break_sig(entry):
    """the entry with the DNSKEY RRSIG's signature changed (one digit)"""
    out = []
    for l in entry.splitlines():
        if " RRSIG DNSKEY " in l:
            f = l.split(" ")
            d = f[-1]
            f[-1] = ("B" if d[0] == "A" else "A") + d[1:]
            l = " ".join(f)
        out.append(l)
    return "\n".join(out)


BADKEYS = break_sig(KEYS)
assert BADKEYS != KEYS
# (the answer section only, as in the scenarios above: the signed NS set
# of the zone in the authority section names ns.tampered.vtest. alone and
# would replace the referral's NS set, which names the others)
WWW_GOOD = "\n".join(["ENTRY_BEGIN", "MATCH opcode qtype qname",
                      "ADJUST copy_id", "REPLY QR AA NOERROR DO",
                      "SECTION QUESTION", f"{Q} IN A", "SECTION ANSWER"] +
                     GOOD + ["ENTRY_END"])


def key_out(step, k=None):
    a = f" ADDRESS {addr(k)}" if k else ""
    return "\n".join([f"STEP {step} CHECK_OUT_QUERY{a}", "ENTRY_BEGIN",
                      "MATCH opcode qtype qname", "SECTION QUESTION",
                      f"{KZ} IN DNSKEY", "ENTRY_END", ""])


def key_reply(step, entry, k=None):
    a = f" ADDRESS {addr(k)}" if k else ""
    return f"STEP {step} REPLY{a}\n{entry}\n"


def key_sent(step, count, k=None):
    a = f" ADDRESS {addr(k)}" if k else ""
    return f"STEP {step} CHECK_SENT {KZ} DNSKEY{a} COUNT {count}\n"


def check_key_bogus(step):
    return check_bogus(step)


def key_scenario(name, title, nservers, conf, steps, extra_root=(),
                 extra_vtest=()):
    text = [f"; {title}",
            "; made by tests/gen_val_restart_rpl.py from the signed data of "
            "val_bogus_ttl.rpl",
            "server:", "\tqname-minimisation: no",
            "\ttarget-fetch-policy: \"0 0 0 0 0\"", ANCHOR.rstrip("\n")]
    text += ["\t" + c for c in conf]
    text += ["stub-zone:", '\tname: "."', "\tstub-addr: 198.51.100.1",
             "CONFIG_END", "", f"SCENARIO_BEGIN {title}", ""]
    text.append(range_text("198.51.100.1", R["198.51.100.1"] +
                           list(extra_root)))
    text.append(range_text("198.51.100.2", vtest_entries(nservers) +
                           list(extra_vtest)))
    # the servers of tampered.vtest.: www A from the range (good), the
    # DNSKEY set by hand
    # (and ns.tampered.vtest. AAAA: NODATA as recorded, asked once the
    # servers' IPv4 addresses are excluded)
    text.append(range_text(addr(1), [WWW_GOOD] +
                           [e for e in R["198.51.100.25"]
                            if asks(e) == ["ns.tampered.vtest.", "IN",
                                           "AAAA"]],
                           [addr(k) for k in range(2, nservers + 1)]))
    text += steps
    text.append("SCENARIO_END\n")
    with open(os.path.join(TESTDATA, f"val_restart_{name}.rpl"), "w") as f:
        f.write("\n".join(text))


# the first server's DNSKEY set is bogus, the second's good: secure (AD)
key_scenario("key_secure", "val-max-restart (default 5) for the key chain: "
             "the first server's DNSKEY set does not verify, the set is "
             "asked again of the second server, whose copy does: the "
             "answer is secure (AD)", 2, [],
             [query(1), key_out(2, 1), key_reply(3, BADKEYS, 1),
              key_out(4, 2), key_reply(5, KEYS, 2), check_secure(6),
              key_sent(7, 1, 1), key_sent(8, 1, 2), key_sent(9, 2),
              sent(10, 1, 1), sent(11, 0, 2),
              # the keys and the answer are cached: asked again, no query
              query(12), check_secure(13), key_sent(14, 2),
              sent(15, 1, 1)])

# val-max-restart: 0: the first bogus DNSKEY set is final
key_scenario("key_zero", "val-max-restart: 0 for the key chain: the first "
             "server's DNSKEY set does not verify: SERVFAIL (EDE 6) at "
             "once, the second server is never asked", 2,
             ["val-max-restart: 0"],
             [query(1), key_out(2, 1), key_reply(3, BADKEYS, 1),
              check_key_bogus(4), key_sent(5, 1, 1), key_sent(6, 0, 2),
              key_sent(7, 1)])

# every server's DNSKEY set bogus: N + 1 fetches, then bogus, remembered
key_scenario("key_all_bogus", "val-max-restart: 2 for the key chain and "
             "three servers, every DNSKEY set bogus: exactly 3 fetches (N + "
             "1), one per server, then SERVFAIL (EDE 6), remembered: the "
             "next query asks nobody", 3, ["val-max-restart: 2"],
             [query(1), key_out(2, 1), key_reply(3, BADKEYS, 1), key_out(4),
              key_reply(5, BADKEYS), key_out(6), key_reply(7, BADKEYS),
              check_key_bogus(8), key_sent(9, 1, 1), key_sent(10, 1, 2),
              key_sent(11, 1, 3), key_sent(12, 3), sent(13, 1, 1),
              query(14), check_key_bogus(15), key_sent(16, 3),
              sent(17, 1, 1)])


# every server's DNSKEY set bogus and restarts to spare: each server once;
# the fetch then starts from the top (the root's and vtest.'s referrals,
# recorded for www, given for this question too) and finds no server
# left: the verdict is the last bogus set's (EDE 6, not "no DNSKEY
# answer", EDE 9), remembered
def referral_for(entry, qname, qtype):
    return entry.replace(f"{Q} IN A", f"{qname} IN {qtype}")


def key_none_left(nservers):
    root = [e for e in R["198.51.100.1"] if asks(e)[0] == Q][0]
    vt = [e for e in vtest_entries(nservers) if asks(e)[0] == Q][0]
    return (referral_for(root, KZ, "DNSKEY"), referral_for(vt, KZ, "DNSKEY"))


KNL_ROOT, KNL_VT = key_none_left(2)
key_scenario("key_none_left", "val-max-restart (default 5) for the key "
             "chain and two servers, both DNSKEY sets bogus: each is asked "
             "once, the fetch from the top finds no server left: SERVFAIL "
             "with the bogus set's EDE 6, remembered: the next query asks "
             "nobody", 2, [],
             [query(1), key_out(2, 1), key_reply(3, BADKEYS, 1),
              key_out(4, 2), key_reply(5, BADKEYS, 2), check_key_bogus(6),
              key_sent(7, 1, 1), key_sent(8, 1, 2), key_sent(9, 4),
              query(10), check_key_bogus(11), key_sent(12, 4)],
             extra_root=[KNL_ROOT], extra_vtest=[KNL_VT])


# 9. the same for a DS set: vtest.'s first server (198.51.100.2, with glue
# in the root's referral) gives tampered.vtest.'s DS set with a broken
# signature (EDE 6); the root's referral also names ns2.vtest., without
# glue, whose address (198.51.100.9, given by vtest.'s server) is looked
# up only when it is needed: the DS set is asked again of it, and its copy
# verifies: secure (AD). The DS answers are given by hand, in order; the
# referral to tampered.vtest. carries no DS set (ds_scenario).
def ds_answer():
    """vtest.'s server's answer for tampered.vtest. DS: recorded, or (when
    the resolver that recorded the ranges took the DS set from the
    referral and never asked) the DS set and its RRSIG as that referral
    carries them, signed data unchanged"""
    rec = [e for e in R["198.51.100.2"] if asks(e) == [KZ, "IN", "DS"]]
    if rec:
        return rec[0]
    ref = [e for e in R["198.51.100.2"] if asks(e)[0] == Q][0]
    ds = [l for l in section(ref, "AUTHORITY")
          if l.split()[0] == KZ and (l.split()[3] == "DS" or
                                     l.split()[3:5] == ["RRSIG", "DS"])]
    assert len(ds) >= 2
    return "\n".join(["ENTRY_BEGIN", "MATCH opcode qtype qname",
                      "ADJUST copy_id", "REPLY QR AA NOERROR DO",
                      "SECTION QUESTION", f"{KZ} IN DS",
                      "SECTION ANSWER"] + ds + ["ENTRY_END"])


DSQ = ds_answer()


def break_ds_sig(entry):
    """the entry with the DS RRSIG's signature changed (one digit)"""
    out = []
    for l in entry.splitlines():
        if " RRSIG DS " in l:
            f = l.split(" ")
            d = f[-1]
            f[-1] = ("B" if d[0] == "A" else "A") + d[1:]
            l = " ".join(f)
        out.append(l)
    return "\n".join(out)


BADDS_SET = break_ds_sig(DSQ)
assert BADDS_SET != DSQ
VT2 = "198.51.100.9"


def ds_out(step, a):
    return "\n".join([f"STEP {step} CHECK_OUT_QUERY ADDRESS {a}",
                      "ENTRY_BEGIN", "MATCH opcode qtype qname",
                      "SECTION QUESTION", f"{KZ} IN DS", "ENTRY_END", ""])


def ds_sent(step, count, a=None):
    ad = f" ADDRESS {a}" if a else ""
    return f"STEP {step} CHECK_SENT {KZ} DS{ad} COUNT {count}\n"


def ds_scenario(name, title, conf, steps, referral_ds=False, clauses=(),
                extra_root=(), ds_answer=False):
    text = [f"; {title}",
            "; made by tests/gen_val_restart_rpl.py from the signed data of "
            "val_bogus_ttl.rpl",
            "server:", "\tqname-minimisation: no",
            "\ttarget-fetch-policy: \"0 0 0 0 0\"", ANCHOR.rstrip("\n")]
    text += ["\t" + c for c in conf]
    text += ["stub-zone:", '\tname: "."', "\tstub-addr: 198.51.100.1"]
    text += list(clauses)
    text += ["CONFIG_END", "", f"SCENARIO_BEGIN {title}", ""]
    root = [e.replace("vtest. 3600 IN NS ns.vtest.\n",
                      "vtest. 3600 IN NS ns.vtest.\n"
                      "vtest. 3600 IN NS ns2.vtest.\n") for e in
            R["198.51.100.1"]]
    assert root != R["198.51.100.1"]
    # the referral to tampered.vtest. without its DS set: the validator
    # takes a referral's DS set from the cache (as Unbound does) and would
    # not ask for it; these scenarios are about the DS answers
    vt = [re.sub(r"^tampered\.vtest\. \d+ IN (RRSIG )?DS .*\n", "", e,
                 flags=re.M) if asks(e)[0] == Q and not referral_ds else e
          for e in R["198.51.100.2"] if asks(e) != [KZ, "IN", "DS"]]
    assert referral_ds or vt != [e for e in R["198.51.100.2"]
                                 if asks(e) != [KZ, "IN", "DS"]]
    if ds_answer:
        vt.append(DSQ)
    root += list(extra_root)
    vt.append("\n".join([
        "ENTRY_BEGIN", "MATCH opcode qtype qname", "ADJUST copy_id",
        "REPLY QR AA NOERROR", "SECTION QUESTION", "ns2.vtest. IN A",
        "SECTION ANSWER", f"ns2.vtest. 3600 IN A {VT2}", "ENTRY_END"]))
    text.append(range_text("198.51.100.1", root))
    text.append(range_text("198.51.100.2", vt))
    text.append(range_text(addr(1), [WWW_GOOD, KEYS]))
    text += steps
    text.append("SCENARIO_END\n")
    with open(os.path.join(TESTDATA, f"val_restart_{name}.rpl"), "w") as f:
        f.write("\n".join(text))


ds_scenario("ds_secure", "val-max-restart (default 5) for the key chain: "
            "the DS set from the parent's first server does not verify, it "
            "is asked again of the parent's second server, whose copy "
            "does: the answer is secure (AD)", [],
            [query(1), ds_out(2, "198.51.100.2"),
             f"STEP 3 REPLY ADDRESS 198.51.100.2\n{BADDS_SET}\n",
             ds_out(4, VT2), f"STEP 5 REPLY ADDRESS {VT2}\n{DSQ}\n",
             check_secure(6), ds_sent(7, 1, "198.51.100.2"),
             ds_sent(8, 1, VT2), ds_sent(9, 2)])

ds_scenario("ds_zero", "val-max-restart: 0 for the key chain: the DS set "
            "from the parent's first server does not verify: SERVFAIL (EDE "
            "6) at once, the parent's second server is never asked",
            ["val-max-restart: 0"],
            [query(1), ds_out(2, "198.51.100.2"),
             f"STEP 3 REPLY ADDRESS 198.51.100.2\n{BADDS_SET}\n",
             check_bogus(4), ds_sent(5, 1)])

# 10. the referral's DS set (signed, in the authority section of vtest.'s
# referral to tampered.vtest.) is the one the key chain uses: it is taken
# from the cache, the parent is not asked for it (as Unbound), and no
# server would answer that question (a query for it is left pending)
ds_scenario("ds_referral", "the DS set of a referral is used from the "
            "cache: the parent is not asked for it again, the answer is "
            "secure (AD)", [],
            [query(1), check_secure(2), ds_sent(3, 0)], referral_ds=True)

# 11. tampered.vtest. is a forward-zone (its own server as the forwarder):
# its DS set is the parent's, asked of vtest.'s server (found from the
# root, which refers the validator's questions for vtest. to it), not of
# the forwarder, which has no such answer (as Unbound: the DS question
# looks for the zone of the parent)
DSF_REF = [e for e in R["198.51.100.1"] if asks(e)[0] == Q][0]
DSF_ROOT = [referral_for(DSF_REF, KZ, "DS"),
            referral_for(DSF_REF, "vtest.", "DNSKEY")]
ds_scenario("ds_forward", "a forward-zone's DS set is asked of the "
            "parent's servers, not of the forwarder: the answer is secure "
            "(AD)", [],
            [query(1), check_secure(2), ds_sent(3, 0, addr(1)),
             ds_sent(4, 1, "198.51.100.2")],
            clauses=["forward-zone:", f'\tname: "{KZ}"',
                     f"\tforward-addr: {addr(1)}"],
            extra_root=DSF_ROOT, ds_answer=True)

# 12. the only server's glue is IPv4 (198.51.100.25) and its answer is
# bogus: before the query fails, the server's IPv6 address is looked up
# (the family its glue lacked, as Unbound asks a name's missing family
# when no server is left; Unbound's ds_wildcard_cname.rpl), and the
# answer from there is secure (AD). The AAAA answer is unsigned (the
# lookup is a sub-query, not validated); the www answers are given by
# hand, so exactly one query goes to each address.
V6 = "2001:db8::25"
V6_AAAA = "\n".join(["ENTRY_BEGIN", "MATCH opcode qtype qname",
                     "ADJUST copy_id", "REPLY QR AA NOERROR",
                     "SECTION QUESTION", "ns.tampered.vtest. IN AAAA",
                     "SECTION ANSWER",
                     f"ns.tampered.vtest. 3600 IN AAAA {V6}", "ENTRY_END"])


def v6_scenario(name, title):
    text = [f"; {title}",
            "; made by tests/gen_val_restart_rpl.py from the signed data of "
            "val_bogus_ttl.rpl",
            "server:", "\tqname-minimisation: no",
            "\ttarget-fetch-policy: \"0 0 0 0 0\"", ANCHOR.rstrip("\n"),
            "stub-zone:", '\tname: "."', "\tstub-addr: 198.51.100.1",
            "CONFIG_END", "", f"SCENARIO_BEGIN {title}", ""]
    text.append(range_text("198.51.100.1", R["198.51.100.1"]))
    text.append(range_text("198.51.100.2", vtest_entries(1)))
    text.append(range_text(addr(1), [e for e in R["198.51.100.25"]
                                     if asks(e)[0] not in
                                     (Q, "ns.tampered.vtest.")] +
                           [V6_AAAA], [V6]))
    text += [query(1), out_query(2, 1), reply(3, BOGUS, 1),
             "\n".join([f"STEP 4 CHECK_OUT_QUERY ADDRESS {V6}",
                        "ENTRY_BEGIN", "MATCH opcode qtype qname",
                        "SECTION QUESTION", f"{Q} IN A", "ENTRY_END", ""]),
             "\n".join([f"STEP 5 REPLY ADDRESS {V6}", "ENTRY_BEGIN",
                        "MATCH opcode qtype qname", "ADJUST copy_id",
                        "REPLY QR AA NOERROR DO", "SECTION QUESTION",
                        f"{Q} IN A", "SECTION ANSWER"] + GOOD +
                       ["ENTRY_END", ""]),
             check_secure(6), sent(7, 1, 1),
             f"STEP 8 CHECK_SENT {Q} A ADDRESS {V6} COUNT 1\n",
             "STEP 9 CHECK_SENT ns.tampered.vtest. AAAA COUNT 1\n"]
    text.append("SCENARIO_END\n")
    with open(os.path.join(TESTDATA, f"val_restart_{name}.rpl"), "w") as f:
        f.write("\n".join(text))


v6_scenario("v6_glue_missing", "val-max-restart (default 5): the only "
            "server's IPv4 glue gave a bogus answer: its IPv6 address, "
            "which the referral did not give, is looked up and asked: "
            "secure (AD)")
