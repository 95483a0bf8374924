#!/bin/bash
# tests/integration/dnssec.sh - DNSSEC validation end to end (issue 16):
# a signed hierarchy built at test time with ldns-keygen and ldns-signzone,
# served by NSD on 127.0.30.0/24 port 53, and petrel (module-config
# "validator iterator", trust-anchor-file with the test root's DS, root
# hints at 127.0.30.1) asked with dig +dnssec.
#
# The hierarchy (one NSD per zone, so that DS questions go to the parent):
#   127.0.30.1   .                 signed (alg 13), the trust anchor's zone
#   127.0.30.2   dsec.             signed (alg 8), delegates to all below
#   127.0.30.1x  algN.dsec.        one per algorithm the signer has, NSEC;
#                                   www A, a wildcard, a CNAME to another zone
#   127.0.30.30  nsec3.dsec.       NSEC3 with opt-out; its delegation
#   127.0.30.31  unsigned.nsec3.dsec.  (opt-out, no DS): insecure
#   127.0.30.32  insecure.dsec.    unsigned, no DS in dsec.: insecure
#   127.0.30.4x  bogus variants, each its own zone: expired, notyet (not yet
#                valid), wrongkey (www signed by a key not in the set),
#                badds (DS in dsec. matches no key), stripped (www RRSIG
#                removed), tampered (www rdata changed after signing)
#   127.0.30.46  restart.dsec.     www rdata changed after signing, and
#   127.0.30.47  restart.dsec.     the same zone untouched: its second server,
#                ns2.insecure.dsec. (no glue, so petrel asks .46 first):
#                val-max-restart asks .47 after .46's bogus answer: AD
#   127.0.30.48  krestart.dsec.    the DNSKEY set's RRSIGs broken, and
#   127.0.30.49  krestart.dsec.    the same zone untouched: its second
#                server, ns3.insecure.dsec. (no glue): the validator asks
#                the DNSKEY set again of .49 after .48's bogus one: AD
# Checks: AD on secure answers (positive, NXDOMAIN, NODATA, wildcard, CNAME
# across zones, NSEC3), no AD on insecure ones, SERVFAIL with the EDE code
# on bogus ones, the data with +cd (and AD with +cd on secure ones), no
# DNSSEC records for clients without DO; in the pthreads and fork thread
# models.
#
# Needs root (port 53 on 127.0.30.x), NSD, ldns-keygen, ldns-signzone, dig.
# Takes /tmp/petrel-integration.lock; stops everything it started.
# Usage: PETREL=./petrel bash tests/integration/dnssec.sh
#    or: unshare -n sh -c 'ip link set lo up; DNSSEC_NETNS=1 PETREL=./petrel
#        bash tests/integration/dnssec.sh'
set -u
# (lib.sh reads optional arguments: no nounset while it runs)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
: "${PETREL:=$HERE/../../petrel}"
: "${PETREL_CONTROL:=$(dirname "$PETREL")/petrel-control}"
PORT=${DNSSEC_PORT:-61650}
export PETREL PETREL_CONTROL RESOLVER=petrel

for t in "$NSD" ldns-keygen ldns-signzone dig; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "dnssec: SKIP: $t not found"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "dnssec: SKIP: needs root for port 53"
	exit 77
fi

# DNSSEC_NETNS=1: run in a private network namespace (unshare -n), where
# no other test shares the loopback: no lock needed
[ "${DNSSEC_NETNS:-0}" = 1 ] && IT_LOCK=0
it_suite dnssec
Z="$IT_WORK/zones"
mkdir -p "$Z"
NOW=$(date -u +%s)
ts() { date -u -d "@$(( NOW + $1 ))" +%Y%m%d%H%M%S; }
VALID="-i $(ts -86400) -e $(ts 2592000)"

# keys NAME ALG BITS: make a KSK and a ZSK for zone NAME in $Z; sets KSK, ZSK
keys() {
	local b=""
	[ -n "$3" ] && b="-b $3"
	KSK=$(cd "$Z" && ldns-keygen -k -a "$2" $b "$1") || return 1
	ZSK=$(cd "$Z" && ldns-keygen -a "$2" $b "$1") || return 1
}

# zone_body NAME: the common records of a leaf zone
zone_body() {
	cat <<EOF
\$ORIGIN $1
\$TTL 3600
@	IN SOA ns hostmaster 1 3600 900 604800 300
@	IN NS ns
ns	IN A $2
www	IN A 192.0.2.1
www	IN TXT "hello"
*.wild	IN A 192.0.2.7
EOF
}

# sign NAME FILE [extra ldns-signzone flags]: sign with $KSK $ZSK into
# FILE.signed (dates $VALID unless given in the flags)
sign() {
	local n=$1 f=$2; shift 2
	(cd "$Z" && ldns-signzone ${SIGNFLAGS:-$VALID} "$@" -f "$f.signed" "$f" \
		"$KSK" "$ZSK") || return 1
}

PARENT_TEST=""	# delegation records added to dsec.
# delegate NAME IP [DSFILE]: add NAME's delegation (and DS) to dsec.
delegate() {
	PARENT_TEST+="$1 IN NS ns.$1"$'\n'"ns.$1 IN A $2"$'\n'
	[ -n "${3:-}" ] && PARENT_TEST+="$(grep -v '^;' "$3")"$'\n'
}

NSDS=()	# "ip zone=file" per NSD

# leaf NAME IP ALG BITS: a signed leaf zone under dsec.
leaf() {
	local n=$1 ip=$2
	keys "$n" "$3" "$4" || return 1
	zone_body "$n" "$ip" > "$Z/$n.zone"
	[ "$n" = alg8.dsec. ] && echo "cname IN CNAME www.alg13.dsec." >> "$Z/$n.zone"
	sign "$n" "$n.zone" || return 1
	delegate "$n" "$ip" "$Z/$KSK.ds"
	NSDS+=("$ip $n=$Z/$n.zone.signed")
}

build() {
	local alg n=10 spec a bits
	for spec in 8:RSASHA256:1024 13:ECDSAP256SHA256: 15:ED25519: \
		5:RSASHA1:1024 7:RSASHA1-NSEC3-SHA1:1024 10:RSASHA512:1024 \
		14:ECDSAP384SHA384: 16:ED448:; do
		alg=${spec%%:*}; a=${spec#*:}; bits=${a#*:}; a=${a%%:*}
		leaf "alg$alg.dsec." "127.0.30.$n" "$a" "$bits" || return 1
		ALGS+=" $alg"
		n=$((n + 1))
	done
	# NSEC3 with opt-out, and an insecure delegation inside it
	keys nsec3.dsec. ECDSAP256SHA256 "" || return 1
	{ zone_body nsec3.dsec. 127.0.30.30
	  echo "unsigned IN NS ns.unsigned"
	  echo "ns.unsigned IN A 127.0.30.31"; } > "$Z/nsec3.dsec.zone"
	sign nsec3.dsec. nsec3.dsec.zone -n -s aabbccdd -t 1 -p || return 1
	delegate nsec3.dsec. 127.0.30.30 "$Z/$KSK.ds"
	NSDS+=("127.0.30.30 nsec3.dsec.=$Z/nsec3.dsec.zone.signed")
	zone_body unsigned.nsec3.dsec. 127.0.30.31 > "$Z/unsigned.nsec3.dsec.zone"
	NSDS+=("127.0.30.31 unsigned.nsec3.dsec.=$Z/unsigned.nsec3.dsec.zone")
	# an unsigned zone, no DS at the parent
	zone_body insecure.dsec. 127.0.30.32 > "$Z/insecure.dsec.zone"
	delegate insecure.dsec. 127.0.30.32
	NSDS+=("127.0.30.32 insecure.dsec.=$Z/insecure.dsec.zone")

	# bogus variants
	keys expired.dsec. ECDSAP256SHA256 "" || return 1
	zone_body expired.dsec. 127.0.30.40 > "$Z/expired.dsec.zone"
	SIGNFLAGS="-i $(ts -3456000) -e $(ts -864000)" sign expired.dsec. \
		expired.dsec.zone || return 1
	delegate expired.dsec. 127.0.30.40 "$Z/$KSK.ds"
	NSDS+=("127.0.30.40 expired.dsec.=$Z/expired.dsec.zone.signed")

	keys notyet.dsec. ECDSAP256SHA256 "" || return 1
	zone_body notyet.dsec. 127.0.30.41 > "$Z/notyet.dsec.zone"
	SIGNFLAGS="-i $(ts 864000) -e $(ts 3456000)" sign notyet.dsec. \
		notyet.dsec.zone || return 1
	delegate notyet.dsec. 127.0.30.41 "$Z/$KSK.ds"
	NSDS+=("127.0.30.41 notyet.dsec.=$Z/notyet.dsec.zone.signed")

	# www A signed by a key that is not in the DNSKEY set
	keys wrongkey.dsec. ECDSAP256SHA256 "" || return 1
	zone_body wrongkey.dsec. 127.0.30.42 > "$Z/wrongkey.dsec.zone"
	sign wrongkey.dsec. wrongkey.dsec.zone || return 1
	local good=$Z/wrongkey.dsec.zone.signed ksk1=$KSK
	mv "$good" "$good.1"
	ZSK=$(cd "$Z" && ldns-keygen -a ECDSAP256SHA256 wrongkey.dsec.) || return 1
	sign wrongkey.dsec. wrongkey.dsec.zone || return 1
	mv "$good" "$good.2"
	{ grep -v -P '^www\.wrongkey\.dsec\.\s+\d+\s+IN\s+RRSIG\s+A\s' "$good.1"
	  grep -P '^www\.wrongkey\.dsec\.\s+\d+\s+IN\s+RRSIG\s+A\s' "$good.2"; } > "$good"
	delegate wrongkey.dsec. 127.0.30.42 "$Z/$ksk1.ds"
	NSDS+=("127.0.30.42 wrongkey.dsec.=$good")

	# the DS at the parent matches no key of the zone
	keys badds.dsec. ECDSAP256SHA256 "" || return 1
	zone_body badds.dsec. 127.0.30.43 > "$Z/badds.dsec.zone"
	sign badds.dsec. badds.dsec.zone || return 1
	local other
	other=$(cd "$Z" && ldns-keygen -k -a ECDSAP256SHA256 badds.dsec.) || return 1
	delegate badds.dsec. 127.0.30.43 "$Z/$other.ds"
	NSDS+=("127.0.30.43 badds.dsec.=$Z/badds.dsec.zone.signed")

	# signatures of www A stripped
	keys stripped.dsec. ECDSAP256SHA256 "" || return 1
	zone_body stripped.dsec. 127.0.30.44 > "$Z/stripped.dsec.zone"
	sign stripped.dsec. stripped.dsec.zone || return 1
	grep -v -P '^www\.stripped\.dsec\.\s+\d+\s+IN\s+RRSIG\s+A\s' \
		"$Z/stripped.dsec.zone.signed" > "$Z/stripped.dsec.zone.s2"
	delegate stripped.dsec. 127.0.30.44 "$Z/$KSK.ds"
	NSDS+=("127.0.30.44 stripped.dsec.=$Z/stripped.dsec.zone.s2")

	# www A changed after signing
	keys tampered.dsec. ECDSAP256SHA256 "" || return 1
	zone_body tampered.dsec. 127.0.30.45 > "$Z/tampered.dsec.zone"
	sign tampered.dsec. tampered.dsec.zone || return 1
	sed -E 's/^(www\.tampered\.dsec\.\s+[0-9]+\s+IN\s+A\s+)192\.0\.2\.1/\1192.0.2.66/' \
		"$Z/tampered.dsec.zone.signed" > "$Z/tampered.dsec.zone.s2"
	grep -q 192.0.2.66 "$Z/tampered.dsec.zone.s2" || return 1
	delegate tampered.dsec. 127.0.30.45 "$Z/$KSK.ds"
	NSDS+=("127.0.30.45 tampered.dsec.=$Z/tampered.dsec.zone.s2")

	# two servers, the first (the only one with glue) bogus: val-max-restart
	keys restart.dsec. ECDSAP256SHA256 "" || return 1
	{ zone_body restart.dsec. 127.0.30.46
	  echo "@ IN NS ns2.insecure.dsec."; } > "$Z/restart.dsec.zone"
	sign restart.dsec. restart.dsec.zone || return 1
	sed -E 's/^(www\.restart\.dsec\.\s+[0-9]+\s+IN\s+A\s+)192\.0\.2\.1/\1192.0.2.66/' \
		"$Z/restart.dsec.zone.signed" > "$Z/restart.dsec.zone.s2"
	grep -q 192.0.2.66 "$Z/restart.dsec.zone.s2" || return 1
	delegate restart.dsec. 127.0.30.46 "$Z/$KSK.ds"
	PARENT_TEST+="restart.dsec. IN NS ns2.insecure.dsec."$'\n'
	echo "ns2 IN A 127.0.30.47" >> "$Z/insecure.dsec.zone"
	NSDS+=("127.0.30.46 restart.dsec.=$Z/restart.dsec.zone.s2")
	NSDS+=("127.0.30.47 restart.dsec.=$Z/restart.dsec.zone.signed")

	# the same for the key chain: the first server's DNSKEY set bogus (a
	# digit of each of its RRSIGs' signatures changed), the second's good
	keys krestart.dsec. ECDSAP256SHA256 "" || return 1
	{ zone_body krestart.dsec. 127.0.30.48
	  echo "@ IN NS ns3.insecure.dsec."; } > "$Z/krestart.dsec.zone"
	sign krestart.dsec. krestart.dsec.zone || return 1
	awk '$4 == "RRSIG" && $5 == "DNSKEY" {
		$NF = (substr($NF, 1, 1) == "A" ? "B" : "A") substr($NF, 2) }
		{ print }' "$Z/krestart.dsec.zone.signed" \
		> "$Z/krestart.dsec.zone.s2"
	cmp -s "$Z/krestart.dsec.zone.signed" "$Z/krestart.dsec.zone.s2" &&
		return 1
	delegate krestart.dsec. 127.0.30.48 "$Z/$KSK.ds"
	PARENT_TEST+="krestart.dsec. IN NS ns3.insecure.dsec."$'\n'
	echo "ns3 IN A 127.0.30.49" >> "$Z/insecure.dsec.zone"
	NSDS+=("127.0.30.48 krestart.dsec.=$Z/krestart.dsec.zone.s2")
	NSDS+=("127.0.30.49 krestart.dsec.=$Z/krestart.dsec.zone.signed")

	# dsec.
	keys dsec. RSASHA256 1024 || return 1
	{ zone_body dsec. 127.0.30.2; printf '%s' "$PARENT_TEST"; } > "$Z/test.zone"
	sign dsec. test.zone || return 1
	NSDS+=("127.0.30.2 dsec.=$Z/test.zone.signed")
	local testds="$Z/$KSK.ds"
	# the root
	keys . ECDSAP256SHA256 "" || return 1
	{ echo "\$ORIGIN ."; echo "\$TTL 3600"
	  echo ". IN SOA ns.root. hostmaster.root. 1 3600 900 604800 300"
	  echo ". IN NS ns.root."
	  echo "ns.root. IN A 127.0.30.1"
	  echo "dsec. IN NS ns.dsec."
	  echo "ns.dsec. IN A 127.0.30.2"
	  grep -v '^;' "$testds"; } > "$Z/root.zone"
	sign . root.zone || return 1
	NSDS+=("127.0.30.1 .=$Z/root.zone.signed")
	grep -v '^;' "$Z/$KSK.ds" > "$Z/root.ds"
	printf '. 3600000 NS ns.root.\nns.root. 3600000 A 127.0.30.1\n' \
		> "$Z/root.hints"
}

ALGS=""
if ! build > "$IT_WORK/build.log" 2>&1; then
	echo "dnssec: building the signed zones failed:"
	cat "$IT_WORK/build.log"
	exit 1
fi
echo "dnssec: zones signed (algorithms:$ALGS)"
for e in "${NSDS[@]}"; do
	ip=${e%% *}; zz=${e#* }
	nsd_start "${ip##*.}" "$ip" "$zz" || exit 1
done

# q ARGS...: dig at the resolver
q() { dig +time=5 +tries=1 @127.0.0.1 -p "$PORT" "$@" 2>&1; }
status() { sed -n 's/.*status: \([A-Z]*\).*/\1/p' | head -1; }
has_ad() { grep -q '^;; flags:[^;]* ad[ ;]'; }

# expect_secure NAME TYPE RCODE (with +cd too: validated, as Unbound)
expect_secure() {
	local out
	out=$(q +dnssec "$1" "$2")
	if [ "$(echo "$out" | status)" = "$3" ] && echo "$out" | has_ad; then
		ok "$MODEL: $1 $2: $3 with AD"
	else
		fail "$MODEL: $1 $2: want $3 with AD, got:"; echo "$out" | sed -n '/HEADER/,/^$/p;/EDE/p'
	fi
	out=$(q +dnssec +cd "$1" "$2")
	if [ "$(echo "$out" | status)" = "$3" ] && echo "$out" | has_ad; then
		ok "$MODEL: $1 $2 +cd: $3 with AD"
	else
		fail "$MODEL: $1 $2 +cd: want $3 with AD, got:"; echo "$out" | sed -n '/HEADER/,/^$/p;/EDE/p'
	fi
}
# expect_insecure NAME TYPE
expect_insecure() {
	local out
	out=$(q +dnssec "$1" "$2")
	if [ "$(echo "$out" | status)" = NOERROR ] && ! echo "$out" | has_ad &&
		echo "$out" | grep -q "^$1.*IN"; then
		ok "$MODEL: $1 $2: data without AD (insecure)"
	else
		fail "$MODEL: $1 $2: want insecure data, got:"; echo "$out" | sed -n '/HEADER/,/^$/p'
	fi
}
# expect_bogus NAME TYPE EDE
expect_bogus() {
	local out cd
	out=$(q +dnssec "$1" "$2")
	if [ "$(echo "$out" | status)" = SERVFAIL ] &&
		echo "$out" | grep -q "EDE: $3 "; then
		ok "$MODEL: $1 $2: SERVFAIL with EDE $3"
	else
		fail "$MODEL: $1 $2: want SERVFAIL with EDE $3, got:"; echo "$out" | grep -E 'status|EDE'
	fi
	cd=$(q +dnssec +cd "$1" "$2")
	if [ "$(echo "$cd" | status)" = NOERROR ] && ! echo "$cd" | has_ad &&
		echo "$cd" | grep -q "^$1.*IN"; then
		ok "$MODEL: $1 $2 +cd: the data, no AD"
	else
		fail "$MODEL: $1 $2 +cd: want the data, got:"; echo "$cd" | grep -E 'status|flags'
	fi
}

# control_checks CONF: flush_bogus, insecure_add, list_insecure,
# insecure_remove through petrel-control
control_checks() {
	local conf=$1 out ctl
	ctl="$(resolver_control)"
	out=$("$ctl" -c "$conf" flush_bogus 2>&1)
	if echo "$out" | grep -Eq '^ok removed [0-9]+ rrsets, [0-9]+ messages and [1-9][0-9]* key entries'; then
		ok "$MODEL: flush_bogus removes the bogus key entries ($out)"
	else
		fail "$MODEL: flush_bogus: $out"
	fi
	out=$("$ctl" -c "$conf" list_insecure 2>&1)
	if [ -z "$out" ]; then
		ok "$MODEL: list_insecure: empty at first"
	else
		fail "$MODEL: list_insecure at first: $out"
	fi
	out=$("$ctl" -c "$conf" insecure_add expired.dsec 2>&1)
	[ "$out" = ok ] || fail "$MODEL: insecure_add: $out"
	out=$("$ctl" -c "$conf" list_insecure 2>&1)
	if [ "$out" = "expired.dsec." ]; then
		ok "$MODEL: list_insecure shows the name added"
	else
		fail "$MODEL: list_insecure: $out"
	fi
	out=$(q +dnssec www.expired.dsec. TXT)
	if [ "$(echo "$out" | status)" = NOERROR ] && ! echo "$out" | has_ad; then
		ok "$MODEL: insecure_add: the expired zone answers, no AD"
	else
		fail "$MODEL: after insecure_add: $(echo "$out" | status)"
	fi
	out=$("$ctl" -c "$conf" insecure_remove expired.dsec 2>&1)
	[ "$out" = ok ] || fail "$MODEL: insecure_remove: $out"
	out=$(q +dnssec www.expired.dsec. AAAA)
	if [ "$(echo "$out" | status)" = SERVFAIL ]; then
		ok "$MODEL: insecure_remove: the expired zone is bogus again"
	else
		fail "$MODEL: after insecure_remove: $(echo "$out" | status)"
	fi
	out=$("$ctl" -c "$conf" insecure_add 'bad..name' 2>&1)
	if echo "$out" | grep -q '^error'; then
		ok "$MODEL: insecure_add with a bad name is an error"
	else
		fail "$MODEL: insecure_add bad..name: $out"
	fi
}

run_model() {
	MODEL=$1
	local conf="$IT_WORK/petrel-$MODEL.conf" out a
	resolver_conf "$conf" dir="$IT_WORK" port="$PORT" hints="$Z/root.hints" \
		model="$MODEL" threads=2 control=yes \
		extra="module-config: \"validator iterator\"\ntrust-anchor-file: \"$Z/root.ds\"\nval-log-level: 1\nextended-statistics: yes"
	if ! resolver_start "$conf" "$conf.log" ""; then
		fail "$MODEL: petrel did not start"; return
	fi
	for a in $ALGS; do
		expect_secure "www.alg$a.dsec." A NOERROR
	done
	expect_secure www.alg8.dsec. TXT NOERROR
	expect_secure nx.alg8.dsec. A NXDOMAIN
	expect_secure www.alg8.dsec. MX NOERROR
	expect_secure x.wild.alg13.dsec. A NOERROR
	expect_secure cname.alg8.dsec. A NOERROR
	expect_secure www.nsec3.dsec. A NOERROR
	# (covered by an opt-out NSEC3: could be an unsigned delegation, so
	# provably insecure, RFC 5155 9.2: no AD)
	out=$(q +dnssec nx.nsec3.dsec. A)
	if [ "$(echo "$out" | status)" = NXDOMAIN ] && ! echo "$out" | has_ad; then
		ok "$MODEL: nx.nsec3.dsec. A: NXDOMAIN under opt-out, no AD"
	else
		fail "$MODEL: nx.nsec3.dsec. A: want NXDOMAIN without AD"
	fi
	expect_secure www.nsec3.dsec. MX NOERROR
	expect_secure www.alg8.dsec. A NOERROR # again: from the cache
	expect_insecure www.insecure.dsec. A
	expect_insecure www.unsigned.nsec3.dsec. A
	expect_bogus www.expired.dsec. A 7
	expect_bogus www.notyet.dsec. A 8
	expect_bogus www.wrongkey.dsec. A 9
	expect_bogus www.badds.dsec. A 9
	expect_bogus www.stripped.dsec. A 10
	expect_bogus www.tampered.dsec. A 6
	# val-max-restart (default 5): .46's bogus answer, then .47's
	expect_secure www.restart.dsec. A NOERROR
	# the same for the key chain: .48's DNSKEY set, then .49's
	expect_secure www.krestart.dsec. A NOERROR
	# a client without DO: validated, no AD, no signatures
	out=$(q +noadflag www.alg13.dsec. A)
	if [ "$(echo "$out" | status)" = NOERROR ] && ! echo "$out" | has_ad &&
		! echo "$out" | grep -q RRSIG; then
		ok "$MODEL: no DO: data without AD or RRSIG"
	else
		fail "$MODEL: no DO: got:"; echo "$out"
	fi
	out=$(q www.tampered.dsec. TXT)
	if [ "$(echo "$out" | status)" = NOERROR ]; then
		ok "$MODEL: the untouched TXT of the tampered zone validates"
	else
		fail "$MODEL: www.tampered.dsec. TXT: $(echo "$out" | status)"
	fi
	out=$(q +adflag www.alg15.dsec. A)
	if echo "$out" | has_ad; then
		ok "$MODEL: AD without DO when the client sets AD"
	else
		fail "$MODEL: +adflag: no AD"
	fi
	out=$("$(resolver_control)" -c "$conf" stats_noreset 2>&1)
	# (Unbound's names: extended statistics, without a thread prefix)
	a=$(echo "$out" | sed -n 's/^num\.answer\.bogus=//p')
	b=$(echo "$out" | sed -n 's/^num\.answer\.secure=//p')
	if [ "${a:-0}" -ge 6 ] && [ "${b:-0}" -ge 10 ]; then
		ok "$MODEL: counters: num.answer.bogus=$a num.answer.secure=$b"
	else
		fail "$MODEL: counters: num.answer.bogus=$a num.answer.secure=$b"
	fi
	# the validator's key cache holds the DNSKEYs it verified (the
	# root's, dsec.'s and those of the signed zones below)
	k=$(echo "$out" | sed -n 's/^key\.cache\.count=//p')
	if [ "${k:-0}" -ge 3 ]; then
		ok "$MODEL: key.cache.count=$k"
	else
		fail "$MODEL: key.cache.count=$k"
	fi
	if grep -q "validation failure <www.tampered.dsec. type 1" "$conf.log"; then
		ok "$MODEL: val-log-level 1 logs the failure"
	else
		fail "$MODEL: no validation failure line in the log"
	fi
	control_checks "$conf"
	resolver_stop
}

MODELS=$(petrel_models)
for m in ${DNSSEC_MODELS:-pthreads fork}; do
	case " $MODELS " in
	*" $m "*) run_model "$m" ;;
	*) skip "$m: not in this build" ;;
	esac
done

finish
