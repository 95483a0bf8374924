#!/usr/bin/env python3
"""tests/integration/keytrap_zone.py - the KeyTrap zone pieces for
keytrap.sh and bench/keytrap (issue 29, section 1).

  keys ZONE COUNT TAG EXPBYTES MODBYTES SEED
      prints COUNT DNSKEY records (flags 256, RSA/SHA-256) for ZONE that
      all have key tag TAG: an exponent of EXPBYTES bytes and a modulus
      of MODBYTES bytes, made-up bytes (odd, top bits set) from SEED, the
      last two modulus bytes chosen so that the tag is TAG. With
      EXPBYTES 255 and MODBYTES 256 these are the keys of the issue (a
      2040-bit exponent: about 1 ms per verification); with EXPBYTES 3
      (65537) they are ordinary public keys that verify nothing.
  bogus SIGNED OWNER N TAG SIGBYTES SEED
      rewrites the signed zone file SIGNED: the RRSIGs of OWNER (an owner
      name as written by ldns-signzone, e.g. *.atk.trap.) are replaced by
      N RRSIGs with the same fields but algorithm 8, key tag TAG and
      SIGBYTES of made-up signature (first byte below 0x80, so that it is
      below any of the moduli): each names every key of the tag.

Made-up bytes only: nothing here is a signature. Deterministic (SEED).
"""
import base64
import random
import sys


def keytag(rd):
    ac = 0
    for i, b in enumerate(rd):
        ac += b if i & 1 else b << 8
    ac += (ac >> 16) & 0xFFFF
    return ac & 0xFFFF


def fake_key(tag, expbytes, modbytes, rnd):
    while True:
        rd = bytearray([1, 0, 3, 8])
        if expbytes > 255:
            rd += bytes([0]) + expbytes.to_bytes(2, "big")
        else:
            rd += bytes([expbytes])
        if expbytes == 3:
            exp = bytearray(b"\x01\x00\x01")
        else:
            exp = bytearray(rnd.getrandbits(8) for _ in range(expbytes))
            exp[0] |= 0x80
            exp[-1] |= 1
        mod = bytearray(rnd.getrandbits(8) for _ in range(modbytes))
        mod[0] |= 0xC0
        rd += exp + mod
        n = len(rd)
        rd[n - 2] = rd[n - 1] = 0
        s = 0
        for i, b in enumerate(rd):
            s += b if i & 1 else b << 8
        for v in range(65536):
            ac = s + v
            ac += (ac >> 16) & 0xFFFF
            last = (v & 0xFF) if n % 2 == 0 else (v >> 8)
            if (ac & 0xFFFF) == tag and last & 1:
                if n % 2 == 0:
                    rd[n - 2], rd[n - 1] = v >> 8, v & 0xFF
                else:
                    rd[n - 2], rd[n - 1] = v & 0xFF, v >> 8
                assert keytag(rd) == tag
                return bytes(rd)


def cmd_keys(zone, count, tag, expbytes, modbytes, seed):
    rnd = random.Random(seed)
    for _ in range(count):
        rd = fake_key(tag, expbytes, modbytes, rnd)
        print(f"{zone} 3600 IN DNSKEY 256 3 8 "
              f"{base64.b64encode(rd[4:]).decode()}")


def cmd_bogus(path, owner, n, tag, sigbytes, seed):
    rnd = random.Random(seed)
    out, model = [], None
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        f = line.split()
        if len(f) > 4 and f[0] == owner and f[3] == "RRSIG":
            model = f
            continue
        out.append(line)
    if model is None:
        sys.exit(f"no RRSIG of {owner} in {path}")
    # owner ttl IN RRSIG type alg labels ottl expi incep tag signer sig
    for _ in range(n):
        sig = bytearray(rnd.getrandbits(8) for _ in range(sigbytes))
        sig[0] &= 0x7F
        g = model[:5] + ["8"] + model[6:10] + [str(tag), model[11],
                                                base64.b64encode(sig).decode()]
        out.append("\t".join(g))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    a = sys.argv[1:]
    if len(a) == 7 and a[0] == "keys":
        cmd_keys(a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5]), int(a[6]))
    elif len(a) == 7 and a[0] == "bogus":
        cmd_bogus(a[1], a[2], int(a[3]), int(a[4]), int(a[5]), int(a[6]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
