#!/bin/sh
# testdata/dnssec/gen.sh - regenerate the signed fixtures used by
# tests/check_val_crypto.c and tests/check_val_nsec.c (not run by make
# check: the fixtures are committed so that every run verifies the same
# bytes). One zone per algorithm, alg<N>.example., signed by ldns-signzone
# with a KSK and a ZSK and fixed inception/expiration dates
# (2025-01-01 .. 2025-02-01), so verification at a fixed `now` inside that
# window is deterministic. alg7 is signed with NSEC3 (salt aabbccdd, 5
# iterations, opt-out), the others with NSEC.
# Usage: cd testdata/dnssec && sh gen.sh
set -e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for spec in 5:RSASHA1:1024 7:RSASHA1-NSEC3-SHA1:1024 8:RSASHA256:1024 \
	10:RSASHA512:1024 13:ECDSAP256SHA256:256 14:ECDSAP384SHA384:384 \
	15:ED25519:256 16:ED448:456; do
	n=${spec%%:*}; rest=${spec#*:}; alg=${rest%%:*}; bits=${rest#*:}
	z=alg$n.example.
	( cd "$tmp"
	  ksk=$(ldns-keygen -k -a $alg -b $bits $z)
	  zsk=$(ldns-keygen -a $alg -b $bits $z)
	  sed "s/@ORIGIN@/$z/g" "$OLDPWD/zone.in" > $z.zone
	  nsec=""
	  if [ $n = 7 ]; then nsec="-n -s aabbccdd -t 5 -p"; fi
	  ldns-signzone $nsec -i 20250101000000 -e 20250201000000 \
		-f $z.signed $z.zone $ksk $zsk
	  cat $ksk.ds > "$OLDPWD/alg$n.ds"
	  grep -v '^;' $z.signed > "$OLDPWD/alg$n.signed" )
done
