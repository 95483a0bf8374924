#!/usr/bin/env python3
"""tests/fuzz/gen_xdp_corpus.py - make the seed corpus of fuzz_xdp.c
(tests/fuzz/corpus/xdp): the query frames of tests/check_xdp.c (sent by
the Linux kernel over a veth), their answers, and variants the parser
must take or refuse (Ethernet padding, IPv4 UDP checksum 0, IP options,
a fragment, a VLAN tag, an IPv6 zero checksum, a cut frame, a bad
checksum). Usage: gen_xdp_corpus.py OUTDIR
"""
import os
import sys

Q4 = ("424d803aafd1cec6227ee46908004500003da660000040114828c6120002c6120001"
      "9c400035002920396c490120000100000000000003777777076578616d706c650363"
      "6f6d0000010001")
R4 = ("cec6227ee469424d803aafd108004500003dfeba40004011afcdc6120001c6120002"
      "00359c4000299fd86c498180000100000000000003777777076578616d706c650363"
      "6f6d0000010001")
Q6 = ("424d803aafd1cec6227ee46986dd600641810029114020010002000000000000000000"
      "000002200100020000000000000000000000019c410035002993652a3b012000010000"
      "0000000003777777076578616d706c6503636f6d00001c0001")
R6 = ("cec6227ee469424d803aafd186dd600caee10029114020010002000000000000000000"
      "00000120010002000000000000000000000002"
      "00359c41002913052a3b8180000100000000000003777777076578616d706c650363"
      "6f6d00001c0001")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    q4, r4, q6, r6 = (bytes.fromhex(h) for h in (Q4, R4, Q6, R6))
    seeds = {
        "q4": q4, "r4": r4, "q6": q6, "r6": r6,
        "q4-padded": q4 + bytes(20),
        "q4-nocsum": q4[:40] + b"\x00\x00" + q4[42:],
        "q4-options": q4[:14] + b"\x46" + q4[15:],
        "q4-fragment": q4[:20] + b"\x20" + q4[21:],
        "q4-vlan": q4[:12] + b"\x81\x00" + q4[14:],
        "q4-cut": q4[:40],
        "q4-badcsum": q4[:-1] + b"\x02",
        "q6-zerocsum": q6[:60] + b"\x00\x00" + q6[62:],
        "q6-hopbyhop": q6[:20] + b"\x00" + q6[21:],
        "q6-cut": q6[:58],
    }
    for name, data in sorted(seeds.items()):
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
