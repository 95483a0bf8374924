"""tests/gen_val_scenarios.py - the table of validator replay scenarios
(testdata/val_*.rpl) that tests/gen_val_rpl.py writes.

Each scenario is a name, a title, the client queries with the answers they
must get, and optionally config lines, the trust anchor ("ds": the test
root's DS, "dnskey": its KSK, a record, or None) and an edit of the
recorded upstream answers (for the bogus variants no signer makes).

The hierarchy (tests/gen_val_rpl.py build()): the root (alg 13) delegates
vtest. (alg 8), which delegates sec (alg 13, NSEC; CNAMEs and DNAMEs to
the others), n3 (alg 8, NSEC3, opt-out, the insecure unsigned.n3), n3hi
(NSEC3 with 200 iterations), insec (unsigned, no DS), unsup (DS of
algorithm 253), dsdig (DS of digest 3), expired, notyet, wrongkey, badds,
stripped, tampered, roll (two KSKs, both in the DS), rollnew (two KSKs,
the DS names the new one), alg5/7/10/14/15/16. Each leaf zone has www A
192.0.2.1, www TXT, *.wild A 192.0.2.7 and x.ent A (ent is an empty
non-terminal).
"""
import re


def scenarios(g):
    Q, S = g.Q, g.S
    L = []

    def sec(name, title, zone, qname, qtype="A", **kw):
        L.append(S(name, title, [Q(qname, qtype, ad=True,
                                   ans=[(zone, qname, qtype)])], **kw))

    def bogus(name, title, qname, ede, qtype="A", **kw):
        L.append(S(name, title, [Q(qname, qtype, rcode="SERVFAIL",
                                   ede=ede)], **kw))

    def insecure(name, title, zone, qname, qtype="A", **kw):
        L.append(S(name, title, [Q(qname, qtype, ad=False,
                                   ans=[(zone, qname, qtype)])], **kw))

    # --- secure answers, AD rules (RFC 4035 3.2.3, RFC 6840 5.7)
    sec("secure_a", "secure A answer with DO: AD and the RRSIG", "sec",
        "www.sec.vtest.")
    sec("secure_txt", "secure TXT answer", "sec", "www.sec.vtest.", "TXT")
    sec("secure_dnskey", "the DNSKEY set of a secure zone is secure", "sec",
        "sec.vtest.", "DNSKEY")
    sec("secure_ds", "a DS set asked for is validated by the parent's keys",
        "test", "sec.vtest.", "DS")
    sec("secure_any", "ANY with DO at a signed name: every RRset with its "
        "RRSIG, validated (the iterator keeps the RRSIGs of ANY)", "sec",
        "www.sec.vtest.", "ANY")
    sec("secure_ns_apex", "the NS set at a secure apex", "sec",
        "sec.vtest.", "NS")
    L.append(S("secure_no_do", "a client without DO and without AD gets "
               "no AD and no RRSIG (RFC 6840 5.7)",
               [Q("www.sec.vtest.", do=False, ad=False,
                  ans=[("sec", "www.sec.vtest.", "A")])]))
    L.append(S("secure_ad_query", "a client with AD and without DO gets AD "
               "but no RRSIG (RFC 6840 5.7)",
               [Q("www.sec.vtest.", do=False, ad_q=True, ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")])]))
    L.append(S("secure_cache_hit", "the second query is answered from the "
               "cache (no upstream range after step 10) with AD",
               [Q("www.sec.vtest.", ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")]),
                Q("www.sec.vtest.", ad=True, at_step=20,
                  ans=[("sec", "www.sec.vtest.", "A")])],
               ranges_until=10))
    L.append(S("secure_cache_no_do", "a secure answer cached for a DO client "
               "is given without RRSIG and AD to a client without DO",
               [Q("www.sec.vtest.", ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")]),
                Q("www.sec.vtest.", do=False, ad=False,
                  ans=[("sec", "www.sec.vtest.", "A")])]))
    L.append(S("key_cache", "a second zone under the same keys: the key "
               "cache answers the walk (no DNSKEY asked again)",
               [Q("www.sec.vtest.", ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")]),
                Q("www.sec.vtest.", "TXT", ad=True,
                  ans=[("sec", "www.sec.vtest.", "TXT")])]))
    L.append(S("key_cache_expiry", "after the DNSKEY TTL (3600 s) the "
               "walk asks for the keys again and the answer stays secure",
               [Q("www.sec.vtest.", ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")]),
                Q("www.sec.vtest.", "TXT", ad=True, step_time=4000,
                  ans=[("sec", "www.sec.vtest.", "TXT")])]))

    # --- denial: NSEC
    L.append(S("nxdomain_nsec", "NXDOMAIN proven by NSEC: AD",
               [Q("nx.sec.vtest.", rcode="NXDOMAIN", ad=True)],
               keep=[(10, "ns.sec.vtest.", "AAAA")]))
    L.append(S("nodata_nsec", "NODATA proven by NSEC: AD",
               [Q("www.sec.vtest.", "MX", ad=True)]))
    L.append(S("nodata_ent", "NODATA at an empty non-terminal (NSEC)",
               [Q("ent.sec.vtest.", ad=True)]))
    L.append(S("nxdomain_below_ent", "NXDOMAIN below an empty non-terminal",
               [Q("nx.ent.sec.vtest.", rcode="NXDOMAIN", ad=True)]))
    sec("wildcard_nsec", "wildcard expansion with its NSEC proof: AD", "sec",
        "a.wild.sec.vtest.")
    L.append(S("wildcard_nodata_nsec", "NODATA from a wildcard (NSEC)",
               [Q("a.wild.sec.vtest.", "TXT", ad=True)]))
    L.append(S("nxdomain_no_do", "a proven NXDOMAIN to a client without DO: "
               "no AD, no NSEC",
               [Q("nx.sec.vtest.", rcode="NXDOMAIN", do=False, ad=False)]))

    # --- denial: NSEC3
    L.append(S("nxdomain_nsec3", "NXDOMAIN proven by NSEC3 (closest "
               "encloser, next closer, wildcard): AD",
               [Q("nx.n3s.vtest.", rcode="NXDOMAIN", ad=True)]))
    L.append(S("nxdomain_nsec3_optout", "NXDOMAIN whose next closer name is "
               "covered by an opt-out NSEC3: not secure (RFC 5155 9.2), "
               "no AD", [Q("nx.n3.vtest.", rcode="NXDOMAIN", ad=False)]))
    L.append(S("nxdomain_nsec3_deep", "NXDOMAIN three labels below the "
               "closest encloser (NSEC3)",
               [Q("a.b.c.n3s.vtest.", rcode="NXDOMAIN", ad=True)]))
    L.append(S("nodata_nsec3", "NODATA proven by NSEC3",
               [Q("www.n3.vtest.", "MX", ad=True)]))
    L.append(S("nodata_nsec3_ent", "NODATA at an empty non-terminal (NSEC3)",
               [Q("ent.n3.vtest.", ad=True)]))
    # (n3 is signed with opt-out: the NSEC3 that covers the next closer
    # name of a wildcard answer or wildcard NODATA is opt-out, so the
    # name may be an unsigned delegation: RFC 5155 9.2, no AD, as Unbound)
    insecure("wildcard_nsec3", "wildcard expansion with its NSEC3 proof, "
             "the next closer covered by opt-out: no AD (RFC 5155 9.2)",
             "n3", "a.wild.n3.vtest.")
    L.append(S("wildcard_nodata_nsec3", "NODATA from a wildcard (NSEC3), "
               "the next closer covered by opt-out: no AD (RFC 5155 9.2)",
               [Q("a.wild.n3.vtest.", "TXT", ad=False)]))
    sec("secure_nsec3_a", "positive answer in an NSEC3 zone", "n3",
        "www.n3.vtest.")
    insecure("nsec3_optout", "an unsigned delegation under NSEC3 opt-out "
             "is insecure", "unsigned.n3", "www.unsigned.n3.vtest.")
    L.append(S("nsec3_nods_query", "the DS question for an unsigned "
               "delegation in an NSEC3 zone: the NSEC3 at the name "
               "proves there is no DS: AD",
               [Q("unsigned.n3.vtest.", "DS", ad=True)]))
    L.append(S("nsec3_iter_nxdomain", "NSEC3 with 200 iterations (over "
               "the 150 limit, RFC 9276): NXDOMAIN is insecure, not bogus",
               [Q("nx.n3hi.vtest.", rcode="NXDOMAIN", ad=False)]))
    L.append(S("nsec3_iter_nodata", "NSEC3 with 200 iterations: NODATA "
               "is insecure",
               [Q("www.n3hi.vtest.", "MX", ad=False)]))
    sec("nsec3_iter_positive", "NSEC3 with 200 iterations: a positive "
        "answer needs no NSEC3 and stays secure", "n3hi", "www.n3hi.vtest.")
    L.append(S("nsec3_iter_limit_raised", "val-nsec3-keysize-iterations "
               "raised to 500: the 200-iteration NXDOMAIN is secure",
               [Q("nx.n3hi.vtest.", rcode="NXDOMAIN", ad=True)],
               conf=['val-nsec3-keysize-iterations: "500"']))
    # the NSEC3 hash budget (CVE-2023-50868): with the iteration limit
    # raised, 200 iterations cost 201 SHA-1 per name hashed; a name 30
    # labels below the zone (6 000 or so) is proven, one 60 labels below
    # (12 000 or so, past the query's 8 192) is bogus, EDE 6
    deep30 = "a." * 30 + "n3hi.vtest."
    deep60 = "a." * 60 + "n3hi.vtest."
    L.append(S("keytrap_nsec3_within", "NSEC3 hash budget: a NXDOMAIN 30 "
               "labels below a 200-iteration zone (limit raised) is "
               "proven within the query's budget: AD",
               [Q(deep30, rcode="NXDOMAIN", ad=True)],
               conf=['val-nsec3-keysize-iterations: "500"']))
    # a spent budget is final: no restart (which would ask the root's
    # and vtest.'s servers again, from the top, .13 being excluded)
    L.append(S("keytrap_nsec3_budget", "NSEC3 hash budget: 60 labels below "
               "a 200-iteration zone cost more SHA-1 than the query may "
               "spend: SERVFAIL, EDE 6, and no restart (was NXDOMAIN AD "
               "after 12 000 hashes)",
               [Q(deep60, rcode="SERVFAIL", ad=False, ede=6,
                  sent=[(deep60, "A ADDRESS 198.51.100.1 COUNT 1"),
                        (deep60, "A ADDRESS 198.51.100.2 COUNT 1"),
                        (deep60, "A ADDRESS 198.51.100.13 COUNT 1")])],
               conf=['val-nsec3-keysize-iterations: "500"']))

    # --- CNAME and DNAME chains
    L.append(S("cname_secure_secure", "CNAME from an NSEC zone to an NSEC3 "
               "zone, both secure: AD",
               [Q("cname.sec.vtest.", ad=True,
                  ans=[("sec", "cname.sec.vtest.", "A"),
                       ("n3", "www.n3.vtest.", "A")])]))
    L.append(S("cname_inzone", "CNAME within the zone: AD",
               [Q("cnamesec.sec.vtest.", ad=True,
                  ans=[("sec", "cnamesec.sec.vtest.", "A")])]))
    L.append(S("cname_secure_insecure", "CNAME from a secure zone into an "
               "insecure one: the data, no AD",
               [Q("cname2.sec.vtest.", ad=False,
                  ans=[("sec", "cname2.sec.vtest.", "A"),
                       ("insec", "www.insec.vtest.", "A")])]))
    L.append(S("cname_insecure_secure", "CNAME from an insecure zone into "
               "a secure one: no AD",
               [Q("cname.insec.vtest.", ad=False,
                  ans=[("insec", "cname.insec.vtest.", "A"),
                       ("sec", "www.sec.vtest.", "A")])]))
    L.append(S("cname_nxdomain", "CNAME to a name proven not to exist "
               "(NSEC3, no opt-out): NXDOMAIN with AD",
               [Q("cnamenx.sec.vtest.", rcode="NXDOMAIN", ad=True,
                  ans=[("sec", "cnamenx.sec.vtest.", "A")])]))
    L.append(S("dname_cname_chain", "a DNAME, then a CNAME in the target "
               "zone, then the data: every link secure",
               [Q("cnamesec.dnloc.sec.vtest.", ad=True,
                  ans=[("sec", "cnamesec.dnloc.sec.vtest.", "A"),
                       ("sec", "cnamesec.sec.vtest.", "A")])]))
    L.append(S("cname_to_bogus", "CNAME into a zone with expired "
               "signatures: SERVFAIL, EDE 7",
               [Q("cnamebog.sec.vtest.", rcode="SERVFAIL", ede=7)]))
    L.append(S("cname_qtype_ds", "DS asked at a name that is a CNAME in "
               "the parent's zone: the CNAME, then NODATA for DS at the "
               "target, secure",
               [Q("cname.sec.vtest.", "DS", ad=True,
                  ans=[("sec", "cname.sec.vtest.", "DS")])]))
    L.append(S("dname_secure", "a signed DNAME and the unsigned CNAME "
               "synthesised from it, target secure: AD (RFC 6672 5.3.1, "
               "the CNAME is validated by the DNAME)",
               [Q("www.dn.sec.vtest.", ad=True,
                  ans=[("sec", "www.dn.sec.vtest.", "A"),
                       ("n3", "www.n3.vtest.", "A")])]))
    L.append(S("dname_inzone", "a signed DNAME pointing into its own zone",
               [Q("www.dnloc.sec.vtest.", ad=True,
                  ans=[("sec", "www.dnloc.sec.vtest.", "A")])]))
    L.append(S("dname_ttl0", "a signed DNAME of TTL 0 synthesises the "
               "names below it from the cache for a grace second (with TTL "
               "0, as Unbound), then is asked again",
               [Q("www.dnz.sec.vtest.", ad=True,
                  ans=[("sec", "www.dnz.sec.vtest.", "A")]),
                Q("www.dnz.sec.vtest.", "TXT", ad=True,
                  ans=[("sec", "www.dnz.sec.vtest.", "TXT")],
                  sent=[("www.dnz.sec.vtest.", "TXT COUNT 0")]),
                Q("ns.dnz.sec.vtest.", ad=True, step_time=2,
                  ans=[("sec", "ns.dnz.sec.vtest.", "A")],
                  sent=[("ns.dnz.sec.vtest.", "A COUNT 1")])]))
    L.append(S("dname_insecure", "a signed DNAME into an insecure zone: "
               "the data, no AD",
               [Q("www.dnin.sec.vtest.", ad=False,
                  ans=[("sec", "www.dnin.sec.vtest.", "A"),
                       ("insec", "www.insec.vtest.", "A")])]))

    def forge_dname(n, qname, qtype, r):
        if qname == "www.dn.sec.vtest.":
            r["answer"] = [re.sub(r"CNAME www\.n3\.vtest\.$",
                                  "CNAME evil.n3.vtest.", l)
                           for l in r["answer"]]
        return r
    L.append(S("dname_forged_cname", "the CNAME beside a signed DNAME is "
               "not its synthesis: it is replaced by the synthesis from the "
               "DNAME (RFC 6672 3.2), secure",
               [Q("www.dn.sec.vtest.", ad=True, edited=False,
                  ans=[("sec", "www.dn.sec.vtest.", "A"),
                       ("n3", "www.n3.vtest.", "A")])],
               edit=forge_dname))

    # --- insecure
    insecure("insecure_nsec_nods", "a delegation proven unsigned by NSEC "
             "(no DS): insecure", "insec", "www.insec.vtest.")
    L.append(S("insecure_nxdomain", "NXDOMAIN in an insecure zone: no AD",
               [Q("nx.insec.vtest.", rcode="NXDOMAIN", ad=False)]))
    L.append(S("ds_absent_query", "the DS question for an unsigned "
               "delegation: NODATA proven by the parent's NSEC, AD",
               [Q("insec.vtest.", "DS", ad=True)]))
    insecure("alg_unsupported", "a DS of an unknown algorithm (253) only: "
             "the zone is insecure (RFC 6840 5.2)", "unsup",
             "www.unsup.vtest.")
    insecure("digest_unsupported", "a DS of an unsupported digest (3) "
             "only: insecure", "dsdig", "www.dsdig.vtest.")
    L.append(S("no_anchor", "without a trust anchor nothing is validated: "
               "no AD", [Q("www.sec.vtest.", ad=False,
                           ans=[("sec", "www.sec.vtest.", "A")])],
               anchor=None))
    L.append(S("no_anchor_bogus", "without a trust anchor, a zone with "
               "expired signatures is answered (nothing validated)",
               [Q("www.expired.vtest.", ad=False,
                  ans=[("expired", "www.expired.vtest.", "A")])],
               anchor=None))

    # --- bogus
    bogus("expired", "signatures expired: SERVFAIL, EDE 7",
          "www.expired.vtest.", 7)
    bogus("notyet", "signatures not yet valid: SERVFAIL, EDE 8",
          "www.notyet.vtest.", 8)
    bogus("wrongkey", "www signed by a key not in the DNSKEY set: SERVFAIL",
          "www.wrongkey.vtest.", 9)
    bogus("badds", "the DS matches no DNSKEY: SERVFAIL, EDE 9",
          "www.badds.vtest.", 9)
    bogus("stripped", "signatures removed in a signed zone: SERVFAIL, "
          "EDE 10", "www.stripped.vtest.", 10)
    bogus("tampered", "rdata changed after signing: SERVFAIL, EDE 6",
          "www.tampered.vtest.", 6)
    L.append(S("stripped_not_hardened", "harden-dnssec-stripped: no lets "
               "an unsigned RRset in a signed zone through as insecure",
               [Q("www.stripped.vtest.", ad=False,
                  ans=[("stripped", "www.stripped.vtest.", "A")])],
               conf=["harden-dnssec-stripped: no"]))
    L.append(S("permissive", "val-permissive-mode: a bogus answer is "
               "given, without AD",
               [Q("www.tampered.vtest.", ad=False,
                  ans=[("tampered", "www.tampered.vtest.", "A")])],
               conf=["val-permissive-mode: yes"]))
    L.append(S("cd_bogus", "CD: a query with CD is validated (as "
               "Unbound), and the bogus data is given to it as it came, "
               "NOERROR without AD (RFC 4035 3.2.2, RFC 6840 5.9), also "
               "from the cache; a client without CD after it gets "
               "SERVFAIL (the bogus answer is remembered: no upstream "
               "query for it); the bogus data is cached no longer than "
               "val-bogus-ttl (60 s), as Unbound's bogus RRsets",
               [Q("www.expired.vtest.", cd=True, ad=False,
                  ans=[("expired", "www.expired.vtest.", "A")]),
                Q("www.expired.vtest.", cd=True, ad=False,
                  ans=[("expired", "www.expired.vtest.", "A")]),
                Q("www.expired.vtest.", rcode="SERVFAIL", ede=7,
                  sent=[("www.expired.vtest.", "A COUNT 3")]),
                Q("www.expired.vtest.", cd=True, ad=False, step_time=61,
                  ans=[("expired", "www.expired.vtest.", "A")],
                  sent=[("www.expired.vtest.", "A COUNT 4")])]))
    L.append(S("cd_secure", "CD on a secure name: validated as Unbound "
               "does, AD by the DO and AD rules (DO, or AD asked), also "
               "from the cache",
               [Q("www.sec.vtest.", cd=True, ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")]),
                Q("www.sec.vtest.", cd=True, ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")],
                  sent=[("www.sec.vtest.", "A COUNT 3")]),
                Q("www.sec.vtest.", cd=True, do=False, ad=False,
                  ans=[("sec", "www.sec.vtest.", "A")]),
                Q("www.sec.vtest.", cd=True, do=False, ad_q=True,
                  ad=True, ans=[("sec", "www.sec.vtest.", "A")])]))
    L.append(S("ignore_cd", "ignore-cd-flag: a CD query is validated "
               "anyway: SERVFAIL for the expired zone",
               [Q("www.expired.vtest.", cd=True, rcode="SERVFAIL", ede=7)],
               conf=["ignore-cd-flag: yes"]))
    L.append(S("bogus_no_do", "bogus is SERVFAIL for clients without DO "
               "too", [Q("www.expired.vtest.", do=False, rcode="SERVFAIL")]))

    def strip_nsec(n, qname, qtype, r):
        if n == 10 and qname == "nx.sec.vtest.":
            r["authority"] = [l for l in r["authority"]
                              if not re.search(r"\sIN\s+(NSEC|RRSIG NSEC)\s",
                                               l)]
        return r
    L.append(S("nxdomain_no_nsec", "NXDOMAIN from a signed zone without "
               "its NSEC records: SERVFAIL, EDE 12",
               [Q("nx.sec.vtest.", rcode="SERVFAIL", ede=12)],
               edit=strip_nsec))

    def wrong_nsec(n, qname, qtype, r):
        if n == 10 and qname == "nx.sec.vtest.":
            other = g.record(10, "www.sec.vtest.", "MX")
            r["authority"] = other["authority"]
        return r
    L.append(S("nxdomain_wrong_nsec", "NXDOMAIN with a signed NSEC that "
               "does not cover the name (another name's proof): SERVFAIL",
               [Q("nx.sec.vtest.", rcode="SERVFAIL", ede=6)],
               edit=wrong_nsec))
    # (EDE 6: NSEC records came but prove nothing; 12 is for none at all,
    # RFC 8914, as Unbound tells them apart)

    def wc_noproof(n, qname, qtype, r):
        if n == 10 and qname == "a.wild.sec.vtest.":
            r["authority"] = [l for l in r["authority"]
                              if not re.search(r"\sIN\s+(NSEC|RRSIG NSEC)\s",
                                               l)]
        return r
    L.append(S("wildcard_no_proof", "a wildcard expansion without the NSEC "
               "that proves the name does not exist: SERVFAIL",
               [Q("a.wild.sec.vtest.", rcode="SERVFAIL", ede=6)],
               edit=wc_noproof))
    # (EDE 6: the data is there, its proof is not; as Unbound)

    def nodata_noproof(n, qname, qtype, r):
        if n == 11 and qname == "www.n3.vtest.":
            r["authority"] = [l for l in r["authority"]
                              if not re.search(r"\sIN\s+(NSEC3|RRSIG NSEC3)"
                                               r"\s", l)]
        return r
    L.append(S("nodata_nsec3_noproof", "NODATA in an NSEC3 zone without its "
               "NSEC3: SERVFAIL",
               [Q("www.n3.vtest.", "MX", rcode="SERVFAIL", ede=12)],
               edit=nodata_noproof))

    def strip_ds(n, qname, qtype, r):
        if n == 2 and qname.endswith("sec.vtest.") and qtype != "DS":
            r["authority"] = [l for l in r["authority"]
                              if not re.search(r"\sIN\s+(DS|RRSIG DS)\s", l)]
        if n == 2 and qname == "sec.vtest." and qtype == "DS":
            r["answer"] = []
        return r
    L.append(S("ds_stripped", "the parent's DS set for a signed zone "
               "removed without a proof: SERVFAIL",
               [Q("www.sec.vtest.", rcode="SERVFAIL")], edit=strip_ds))

    # --- anchors and negative anchors
    L.append(S("anchor_dnskey", "trust anchor given as the root's DNSKEY",
               [Q("www.sec.vtest.", ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")])], anchor="dnskey"))
    L.append(S("anchor_wrong", "a trust anchor that matches no root key: "
               "everything under it is bogus",
               [Q("www.sec.vtest.", rcode="SERVFAIL")],
               anchor=". IN DS 12345 13 2 " + "00" * 32))
    L.append(S("domain_insecure", "domain-insecure: a secure zone is "
               "answered without AD",
               [Q("www.sec.vtest.", ad=False,
                  ans=[("sec", "www.sec.vtest.", "A")])],
               conf=['domain-insecure: "sec.vtest"']))
    L.append(S("domain_insecure_bogus", "domain-insecure over a zone with "
               "expired signatures: the data, no SERVFAIL",
               [Q("www.expired.vtest.", ad=False,
                  ans=[("expired", "www.expired.vtest.", "A")])],
               conf=['domain-insecure: "expired.vtest"']))
    L.append(S("domain_insecure_sibling", "domain-insecure for one zone "
               "leaves its siblings validated",
               [Q("www.n3.vtest.", ad=True,
                  ans=[("n3", "www.n3.vtest.", "A")])],
               conf=['domain-insecure: "sec.vtest"']))

    # --- rollover
    sec("rollover_double_ds", "KSK rollover, double DS: two KSKs and a DS "
        "for each", "roll", "www.roll.vtest.")
    sec("rollover_new_ksk", "KSK rollover: the DS names only the new KSK, "
        "the DNSKEY set is signed by both", "rollnew", "www.rollnew.vtest.")

    def drop_one_sig(n, qname, qtype, r):
        if n == 27 and qname == "www.roll.vtest.":
            sigs = [l for l in r["answer"] if " RRSIG " in l]
            r["answer"] = [l for l in r["answer"] if l != sigs[0]]
        return r
    L.append(S("rollover_zsk_one_sig", "ZSK rollover: the RRset carries "
               "the signature of one of the two ZSKs only: secure",
               [Q("www.roll.vtest.", ad=True,
                  ans=[("roll", "www.roll.vtest.", "A")])],
               edit=drop_one_sig))

    # --- harden-algo-downgrade (twoalg: signed with algorithms 8 and 13,
    # the DS set names both)
    def strip_alg13(n, qname, qtype, r):
        if n == 29:
            for sec in ("answer", "authority"):
                r[sec] = [l for l in r[sec]
                          if not re.search(r"\sRRSIG\s+\S+\s+13\s", l)]
        return r
    sec("algo_two_secure", "a zone signed with algorithms 8 and 13, a DS "
        "for each: secure", "twoalg", "www.twoalg.vtest.")
    sec("algo_two_harden", "harden-algo-downgrade: yes and a zone signed "
        "with both algorithms of its DS set: secure", "twoalg",
        "www.twoalg.vtest.", conf=["harden-algo-downgrade: yes"])
    L.append(S("algo_downgrade_default", "the algorithm 13 signatures "
               "stripped, harden-algo-downgrade: no (the default): one "
               "algorithm is enough, secure",
               [Q("www.twoalg.vtest.", ad=True,
                  ans=[("twoalg", "www.twoalg.vtest.", "A")])],
               edit=strip_alg13))
    L.append(S("algo_downgrade_harden", "the algorithm 13 signatures "
               "stripped, harden-algo-downgrade: yes: the DNSKEY set is "
               "not signed by every algorithm of the DS set, bogus",
               [Q("www.twoalg.vtest.", rcode="SERVFAIL")],
               conf=["harden-algo-downgrade: yes"], edit=strip_alg13))

    def strip_alg13_www(n, qname, qtype, r):
        if n == 29 and qname == "www.twoalg.vtest.":
            r["answer"] = [l for l in r["answer"]
                           if not re.search(r"\sRRSIG\s+A\s+13\s", l)]
        return r
    L.append(S("algo_downgrade_harden_rrset", "harden-algo-downgrade: "
               "yes, the DNSKEY set signed by both algorithms but the A "
               "RRset by algorithm 8 only: bogus",
               [Q("www.twoalg.vtest.", rcode="SERVFAIL")],
               conf=["harden-algo-downgrade: yes"], edit=strip_alg13_www))

    # --- prefetch-key: the referral to sec.vtest carries its DS; the
    # server of sec.vtest then fails the question itself (SERVFAIL), so
    # the validator never asks for the keys: only the prefetch does
    def fail_www_sec(n, qname, qtype, r):
        if n == 10 and qname == "www.sec.vtest." and qtype == "A":
            r["rcode"] = "SERVFAIL"
            r["answer"], r["authority"], r["additional"] = [], [], []
        return r
    L.append(S("prefetch_key", "prefetch-key: yes: the DNSKEY set of "
               "sec.vtest is asked for when the referral with its DS "
               "comes, though the answer (SERVFAIL) needs no key",
               [Q("www.sec.vtest.", rcode="SERVFAIL",
                  sent=[("sec.vtest.", "DNSKEY")])],
               conf=["prefetch-key: yes"], edit=fail_www_sec))

    # --- val-bogus-ttl
    L.append(S("bogus_ttl", "a bogus answer is remembered for val-bogus-ttl "
               "(60 s): the same question fails again at once, with its "
               "EDE, without an upstream query (no range after step 10)",
               [Q("www.tampered.vtest.", rcode="SERVFAIL", ede=6),
                Q("www.tampered.vtest.", rcode="SERVFAIL", ede=6,
                  at_step=20)], ranges_until=10,
               keep=[(1, "vtest.", "DS"), (2, "tampered.vtest.", "DS")]))
    L.append(S("dns64_secure", "dns64 on a validating resolver (RFC "
               "6147 5.5): the AAAA synthesised from a validated NODATA "
               "and a validated A answer gets AD (case 2, as Unbound); a "
               "client with DO and CD gets the real data, no synthesis "
               "(case 3), validated (AD, as Unbound), also after the "
               "synthesised answer is cached",
               [Q("www.sec.vtest.", "AAAA", ad=True,
                  lines=["www.sec.vtest. 3600 IN AAAA 64:ff9b::c000:201"]),
                Q("www.sec.vtest.", "AAAA", cd=True, ad=True)],
               conf=['module-config: "dns64 validator iterator"',
                     "dns64-prefix: 64:ff9b::/96"]))
    L.append(S("dns64_bogus_a", "dns64 on a validating resolver: an "
               "AAAA NODATA that validates, and an A answer that is bogus: "
               "SERVFAIL with the A answer's EDE, not the NODATA (as "
               "Unbound's synthesis takes the A answer's status, its "
               "dns64_dnssec.rpl); a client with DO and CD gets the "
               "validated NODATA (AD, no synthesis); one with CD without "
               "DO the AAAA made from the bogus A data, without AD",
               [Q("www.tampered.vtest.", "AAAA", rcode="SERVFAIL", ede=6),
                Q("www.tampered.vtest.", "AAAA", cd=True, ad=True),
                Q("www.tampered.vtest.", "AAAA", cd=True, do=False,
                  ad=False,
                  lines=["www.tampered.vtest. 3600 IN AAAA "
                         "64:ff9b::c000:242"])],
               conf=['module-config: "dns64 validator iterator"',
                     "dns64-prefix: 64:ff9b::/96"]))
    L.append(S("bogus_ttl_records", "a bogus answer is remembered no "
               "longer than its records live (TTL 5 here, val-bogus-ttl 60 "
               "s), as Unbound's bogus message leaves its cache with them: "
               "6 s later the question is asked upstream again (its "
               "server once more: 4 queries, 3 the first time from the "
               "root down)",
               [Q("short.tampered.vtest.", rcode="SERVFAIL", ede=6),
                Q("short.tampered.vtest.", rcode="SERVFAIL", ede=6,
                  step_time=6,
                  sent=[("short.tampered.vtest.", "A COUNT 4")])],
               conf=["val-max-restart: 0"]))
    L.append(S("bogus_ttl_cd", "a bogus answer remembered for "
               "val-bogus-ttl does not stop a CD client getting the data: "
               "from the message cache, where the SERVFAIL of the client "
               "without CD left it (no upstream query), as Unbound serves "
               "its bogus message to CD clients",
               [Q("www.tampered.vtest.", rcode="SERVFAIL", ede=6,
                  sent=[("www.tampered.vtest.", "A COUNT 5")]),
                Q("www.tampered.vtest.", cd=True, ad=False,
                  ans=[("tampered", "www.tampered.vtest.", "A")],
                  sent=[("www.tampered.vtest.", "A COUNT 5")])]))
    L.append(S("bogus_ttl_zero", "val-bogus-ttl: 0 (nothing remembered) loads and "
               "the question fails the same way again",
               [Q("www.tampered.vtest.", rcode="SERVFAIL", ede=6),
                Q("www.tampered.vtest.", rcode="SERVFAIL", ede=6)],
               conf=["val-bogus-ttl: 0"]))
    L.append(S("bogus_ttl_other_type", "the remembered failure is for its "
               "question only: another type of the zone still validates",
               [Q("www.tampered.vtest.", rcode="SERVFAIL", ede=6),
                Q("www.tampered.vtest.", "TXT", ad=True,
                  ans=[("tampered", "www.tampered.vtest.", "TXT")])]))

    # --- root-key-sentinel (RFC 8509), on a secure wildcard
    ta = g.ROOT_KSK_TAG
    other = (ta + 1) % 65536
    for kind, tag, ok, what in (
            ("is-ta", ta, True, "the anchor's key: the answer"),
            ("is-ta", other, False, "a key not in the anchor: SERVFAIL"),
            ("not-ta", ta, False, "the anchor's key: SERVFAIL"),
            ("not-ta", other, True, "a key not in the anchor: the answer")):
        name = f"root-key-sentinel-{kind}-{tag:05d}.wild.sec.vtest."
        L.append(S(f"sentinel_{kind.replace('-', '_')}_"
                   f"{'anchor' if tag == ta else 'other'}",
                   f"root-key-sentinel (RFC 8509): {kind} with {what}",
                   [Q(name, ad=True, ans=[("sec", name, "A")]) if ok else
                    Q(name, rcode="SERVFAIL")]))
    L.append(S("sentinel_off", "root-key-sentinel: no: the sentinel label "
               "is an ordinary name",
               [Q(f"root-key-sentinel-is-ta-{other:05d}.wild.sec.vtest.",
                  ad=True, ans=[("sec", f"root-key-sentinel-is-ta-"
                                f"{other:05d}.wild.sec.vtest.", "A")])],
               conf=["root-key-sentinel: no"]))

    # --- trust-anchor-signaling (RFC 8145)
    L.append(S("ta_signaling", "trust-anchor-signaling: fetching the "
               "root's keys sends _ta-<key tag in hex> type NULL to the "
               "root (RFC 8145 5.1)",
               [Q("www.sec.vtest.", ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")],
                  sent=[(f"_ta-{g.ROOT_KSK_TAG:04x}.", "NULL")])]))

    # --- aggressive NSEC (RFC 8198)
    L.append(S("aggressive_nsec", "aggressive-nsec: a second name covered "
               "by the NSEC records of a validated NXDOMAIN is answered "
               "NXDOMAIN with AD from them, with no upstream query (no "
               "range after step 10)",
               [Q("nx.sec.vtest.", rcode="NXDOMAIN", ad=True),
                Q("ok.sec.vtest.", rcode="NXDOMAIN", ad=True, at_step=20)],
               ranges_until=10))
    L.append(S("aggressive_nsec_nodata", "aggressive-nsec: NODATA for "
               "another type at a name whose validated NSEC is cached",
               [Q("www.sec.vtest.", "MX", ad=True),
                Q("www.sec.vtest.", "SRV", ad=True, at_step=20)],
               ranges_until=10))
    L.append(S("aggressive_nsec_no_do", "aggressive-nsec: the synthesised "
               "NXDOMAIN to a client without DO: no NSEC, no AD",
               [Q("nx.sec.vtest.", rcode="NXDOMAIN", ad=True),
                Q("ok.sec.vtest.", rcode="NXDOMAIN", do=False, ad=False,
                  at_step=20)],
               ranges_until=10))
    L.append(S("aggressive_nsec_cd", "aggressive-nsec: a CD client is not "
               "answered from the validated NSEC store (asked upstream; "
               "the answer is validated: AD)",
               [Q("nx.sec.vtest.", rcode="NXDOMAIN", ad=True),
                Q("ok.sec.vtest.", rcode="NXDOMAIN", cd=True, ad=True)]))
    L.append(S("aggressive_nsec_any", "aggressive-nsec: an NSEC at the "
               "name does not answer an ANY question (asked upstream)",
               [Q("www.sec.vtest.", "MX", ad=True),
                Q("www.sec.vtest.", "ANY", ad=True,
                  ans=[("sec", "www.sec.vtest.", "ANY")])]))
    L.append(S("aggressive_nsec_off", "aggressive-nsec: no: the second "
               "name is asked upstream",
               [Q("nx.sec.vtest.", rcode="NXDOMAIN", ad=True),
                Q("ok.sec.vtest.", rcode="NXDOMAIN", ad=True)],
               conf=["aggressive-nsec: no"]))
    L.append(S("aggressive_nsec_cname_target", "aggressive-nsec: the "
               "target of a CNAME (from another signed zone) that the "
               "NSEC records of a validated NXDOMAIN cover is answered "
               "from them, NXDOMAIN with AD, and not asked upstream",
               [Q("nxa.sec.vtest.", rcode="NXDOMAIN", ad=True),
                Q("cnamenxsec.n3.vtest.", rcode="NXDOMAIN", ad=True,
                  ans=[("n3", "cnamenxsec.n3.vtest.", "A")],
                  sent=[("nxb.sec.vtest.", "A COUNT 0")])]))
    L.append(S("aggressive_nsec_not_covered", "aggressive-nsec: a name the "
               "cached NSEC records do not cover is asked upstream",
               [Q("nx.sec.vtest.", rcode="NXDOMAIN", ad=True),
                Q("dz.sec.vtest.", rcode="NXDOMAIN", ad=True)]))

    # --- RFC 5011: the root's KSK rolls while the resolver runs
    phases = [(0, 99, {1: 1}), (100, 199, {1: 101}), (200, 300, {1: 102})]
    old, new = g.ROOT_KSK_TAG, g.ROOT_KSK2_TAG
    L.append(S("rfc5011_rollover", "RFC 5011: the auto-trust-anchor-file "
               "starts with the old KSK's DS; a new KSK is published, seen "
               "by the probes, trusted after add-holddown (30 days), and "
               "the root then signed by the new KSK alone stays secure; "
               "the file is written back at each step",
               [Q("www.sec.vtest.", ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")],
                  files=[("root.key", old, "state=2")]),
                Q("www.sec.vtest.", "TXT", ad=True, step_time=7200,
                  at_step=100, ans=[("sec", "www.sec.vtest.", "TXT")],
                  files=[("root.key", new, "state=1"),
                         ("root.key", old, "state=2")]),
                Q("www.n3.vtest.", ad=True, step_time=31 * 86400,
                  ans=[("n3", "www.n3.vtest.", "A")],
                  files=[("root.key", new, "state=2")]),
                Q("www.sec.vtest.", ad=True, step_time=7200, at_step=200,
                  ans=[("sec", "www.sec.vtest.", "A")])],
               anchor=None, phases=phases,
               conf=['auto-trust-anchor-file: "@TMPDIR@/root.key"'],
               files=[("root.key", g.ROOT_DS)]))
    L.append(S("rfc5011_static_fails", "the same rollover with a static "
               "trust-anchor of the old KSK: once the root is signed by "
               "the new KSK alone, SERVFAIL (what RFC 5011 prevents)",
               [Q("www.sec.vtest.", ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")]),
                Q("www.sec.vtest.", "TXT", ad=True, step_time=7200,
                  at_step=100, ans=[("sec", "www.sec.vtest.", "TXT")]),
                Q("www.n3.vtest.", ad=True, step_time=31 * 86400,
                  ans=[("n3", "www.n3.vtest.", "A")]),
                Q("www.sec.vtest.", rcode="SERVFAIL", step_time=7200,
                  at_step=200)],
               phases=phases))
    L.append(S("rfc5011_holddown", "RFC 5011: a new KSK seen for less than "
               "add-holddown stays pending (state 1), not trusted",
               [Q("www.sec.vtest.", ad=True,
                  ans=[("sec", "www.sec.vtest.", "A")]),
                Q("www.sec.vtest.", "TXT", ad=True, step_time=7200,
                  at_step=100, ans=[("sec", "www.sec.vtest.", "TXT")]),
                Q("www.n3.vtest.", ad=True, step_time=10 * 86400,
                  ans=[("n3", "www.n3.vtest.", "A")],
                  files=[("root.key", new, "state=1")])],
               anchor=None, phases=phases[:2],
               conf=['auto-trust-anchor-file: "@TMPDIR@/root.key"'],
               files=[("root.key", g.ROOT_DS)]))

    # --- algorithms
    for a in (5, 7, 10, 14, 15, 16):
        sec(f"alg{a}", f"a zone signed with algorithm {a}: secure",
            f"alg{a}", f"www.alg{a}.vtest.")
    return L
