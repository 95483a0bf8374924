#!/usr/bin/env bash
# tests/integration/keytrap.sh - KeyTrap (CVE-2023-50387): validation work
# is bounded, and cached clients are answered while it goes on
# (`make check-keytrap`, issue 29 section 1).
#
# usage: tests/integration/keytrap.sh [-k]
#   -k  keep the work directory (zones, configs, logs)
# environment: PETREL=path; KT_RESOLVER=unbound to run Unbound instead on
#   the same zones (bench/keytrap: figures only, no verdict on EDE);
#   KT_PORT (61290), KT_SIGS (bogus RRSIGs per attack answer, 10),
#   KT_RATE (cached queries a second, 200), KT_SECONDS (10),
#   KT_CPU_MAX_MS (CPU per attack query allowed, 200), KT_PCT_MIN (99)
#
# The zones, built at test time in the work directory:
#   .      (NSD on 127.0.200.2:53) signed with ldns-keygen/ldns-signzone
#          ECDSA keys; its DS is the resolver's trust anchor;
#   trap.  (NSD on 127.0.200.3:53) a real KSK and ZSK (ECDSA, DS in the
#          root) and 30 more DNSKEYs (RSA/SHA-256) that all have key tag
#          4711, each with a 2040-bit public exponent and a 2048-bit
#          modulus of made-up bytes (tests/integration/keytrap_zone.py):
#          the issue's zone, about 1 ms per verification before the
#          exponent limit. The DNSKEY set is signed by the real KSK, so
#          it validates. www.trap. A is signed by the ZSK (the cached
#          name); *.atk.trap. A carries KT_SIGS RRSIGs of algorithm 8 and
#          tag 4711 with made-up signature bytes (each names all 30 keys);
#   trap2. the same with 30 ordinary-looking keys of tag 4711 (exponent
#          65537, 4096-bit moduli): usable keys, so only the verification
#          budget bounds the work (about 0.05 ms each); at most 100 RRSIGs
#          (of 512 bytes: more would not fit in one 64 kB message).
# The resolver (one worker thread, "validator iterator", the root DS as
# trust anchor, a loopback root-hints file) on 127.0.200.1:KT_PORT; the
# clients (keytrap_load.py) on 127.0.200.10.
#
# Checks:
# 0. A burst: KT_BURST (40) attack queries for trap2. at once (many of
#    them woken together by the zone's DNSKEY answer); the 20 cached
#    queries sent when the first attack answer comes are all answered
#    before the last one (the validation work per turn of the loop is
#    bounded).
# 1. www.trap. and www.trap2. are secure (AD); an attack name is SERVFAIL
#    with EDE 6 (DNSSEC Bogus).
# 2. Per zone: 50 attack queries (new names, 10 a second) cost the
#    resolver under KT_CPU_MAX_MS of CPU each on average (utime+stime of
#    the process from /proc, not wall time, counted until every one is
#    answered or 120 s have passed: work left queued counts too).
# 3. Per zone: KT_RATE cached queries a second for www.trap. for
#    KT_SECONDS, while 10 attack queries a second run: at least KT_PCT_MIN
#    percent of the cached queries are answered within 100 ms (measured
#    by the client, in one process, on a machine that may be loaded: the
#    bound is the fraction, not the worst case).
# Takes /tmp/petrel-integration.lock, runs about 45 s, stops everything it
# started (lib.sh). Exit 0 when every check passed, 1 otherwise, 77 when
# a tool is missing or without root.

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

while [ $# -gt 0 ]; do
	case "$1" in
	-k) IT_KEEP=1 ;;
	*) echo "usage: $0 [-k]" >&2; exit 2 ;;
	esac
	shift
done

PORT=${KT_PORT:-61290}
RES_IP=127.0.200.1
ROOT_IP=127.0.200.2
TRAP_IP=127.0.200.3
CLIENT=127.0.200.10
NSIGS=${KT_SIGS:-10}
RATE=${KT_RATE:-200}
SECS=${KT_SECONDS:-10}
CPU_MAX_MS=${KT_CPU_MAX_MS:-200}
PCT_MIN=${KT_PCT_MIN:-99}
TAG=4711

for tool in "$NSD" ldns-keygen ldns-signzone dig python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "keytrap: SKIP: $tool not found (apt-get install nsd ldnsutils bind9-dnsutils)"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "keytrap: SKIP: needs root to bind port 53 on $ROOT_IP"
	exit 77
fi
it_suite keytrap
RBIN=$PETREL
NAME=petrel
if [ "${KT_RESOLVER:-petrel}" = unbound ]; then
	RBIN=$UNBOUND
	NAME=unbound
	[ -x "$RBIN" ] || { echo "keytrap: SKIP: no $UNBOUND"; exit 77; }
fi

Z="$IT_WORK/zones"
mkdir -p "$Z"
NOW=$(date -u +%s)
ts() { date -u -d "@$(( NOW + $1 ))" +%Y%m%d%H%M%S; }
VALID="-i $(ts -86400) -e $(ts 2592000)"

# zone ZONE FAKE_EXP_BYTES FAKE_MOD_BYTES SIG_BYTES SEED NSIGS: the
# signed zone ZONE with its 30 colliding keys and NSIGS bogus RRSIGs of
# *.atk; sets ZDS to its KSK's DS file
zone() {
	local z=$1 ksk zsk
	ksk=$(cd "$Z" && ldns-keygen -k -a ECDSAP256SHA256 "$z") || return 1
	zsk=$(cd "$Z" && ldns-keygen -a ECDSAP256SHA256 "$z") || return 1
	{
		echo "\$ORIGIN $z"
		echo "\$TTL 3600"
		echo "@ IN SOA ns hostmaster 1 3600 900 604800 300"
		echo "@ IN NS ns"
		echo "ns IN A $TRAP_IP"
		echo "www IN A 192.0.2.1"
		echo "*.atk IN A 192.0.2.66"
		python3 "$here/keytrap_zone.py" keys "$z" 30 $TAG "$2" "$3" "$5"
	} > "$Z/${z}zone" || return 1
	(cd "$Z" && ldns-signzone $VALID -f "${z}zone.signed" "${z}zone" \
		"$ksk" "$zsk") || return 1
	python3 "$here/keytrap_zone.py" bogus "$Z/${z}zone.signed" \
		"*.atk.$z" "$6" $TAG "$4" "$5" || return 1
	ZDS="$Z/$ksk.ds"
}

zone trap. 255 256 256 1 "$NSIGS" || { fail "cannot build trap."; finish; }
DS1=$ZDS
NSIGS2=$(( NSIGS > 100 ? 100 : NSIGS ))
zone trap2. 3 512 512 2 "$NSIGS2" || { fail "cannot build trap2."; finish; }
DS2=$ZDS
{
	echo "\$ORIGIN ."
	echo "\$TTL 3600"
	echo ". IN SOA ns.root. hostmaster.root. 1 3600 900 604800 300"
	echo ". IN NS ns.root."
	echo "ns.root. IN A $ROOT_IP"
	echo "trap. IN NS ns.trap."
	echo "ns.trap. IN A $TRAP_IP"
	echo "trap2. IN NS ns.trap2."
	echo "ns.trap2. IN A $TRAP_IP"
	grep -v '^;' "$DS1"
	grep -v '^;' "$DS2"
} > "$Z/root.zone"
RKSK=$(cd "$Z" && ldns-keygen -k -a ECDSAP256SHA256 .) &&
RZSK=$(cd "$Z" && ldns-keygen -a ECDSAP256SHA256 .) &&
(cd "$Z" && ldns-signzone $VALID -f root.zone.signed root.zone "$RKSK" "$RZSK") ||
	{ fail "cannot sign the root"; finish; }
grep -v '^;' "$Z/$RKSK.ds" > "$Z/root.ds"
printf '. 3600 IN NS ns.root.\nns.root. 3600 IN A %s\n' "$ROOT_IP" > "$Z/root.hints"

NSD_EXTRA="rrl-ratelimit: 0" nsd_start root "$ROOT_IP" ".=$Z/root.zone.signed" ||
	{ fail "NSD for the root did not start"; finish; }
NSD_EXTRA="rrl-ratelimit: 0" nsd_start trap "$TRAP_IP" \
	"trap.=$Z/trap.zone.signed" "trap2.=$Z/trap2.zone.signed" ||
	{ fail "NSD for trap. did not start"; finish; }

conf="$IT_WORK/res.conf"
cat > "$conf" <<CONF
server:
  interface: $RES_IP
  port: $PORT
  do-ip6: no
  num-threads: 1
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "$IT_WORK"
  pidfile: "$IT_WORK/res.pid"
  logfile: ""
  use-syslog: no
  verbosity: 1
  access-control: 127.0.200.0/24 allow
  do-not-query-localhost: no
  root-hints: "$Z/root.hints"
  trust-anchor-file: "$Z/root.ds"
  module-config: "validator iterator"
remote-control:
  control-enable: no
CONF
"$RBIN" -d -c "$conf" > "$IT_WORK/res.log" 2>&1 9>&- &
RPID=$!
it_track "$RPID"
for i in $(seq 50); do
	dig +time=1 +tries=1 @"$RES_IP" -p "$PORT" . SOA >/dev/null 2>&1 && break
	sleep 0.2
done

# 0. a burst (before trap2.'s keys are known): KT_BURST attack queries
#    for trap2. at once (usable keys: 8 verifications of RSA-4096 each).
#    Those whose answers come while the zone's DNSKEY set is being
#    fetched wait for the same sub-query and are woken in one turn of the
#    resolver's loop, where, unbounded, they would be checked back to
#    back (how many do depends on how fast NSD answers: with main's
#    petrel the cached queries below came after the last attack answer,
#    16 to 76 ms late, in 3 runs of 4). When the first attack answer
#    comes, 20 cached queries (www.trap., asked just before) are sent at
#    once: each must be answered before the last attack answer, as the
#    resolver checks at most VAL_TURN_VERIFY_DEFAULT (16) signatures per
#    turn and answers the cached queries in the next turn. The client has
#    the rest of the burst (17 to 90 ms here) to send them: generous for
#    a script that sends as soon as the first answer is read.
BURST=${KT_BURST:-40}
dig +time=5 +tries=1 +dnssec -b "$CLIENT" @"$RES_IP" -p "$PORT" www.trap. A >/dev/null 2>&1
res=$(python3 "$here/keytrap_load.py" burst "$RES_IP" "$PORT" "$CLIENT" \
	www.trap. 20 atk0.atk.trap2. "$BURST")
echo "# $NAME $res"
after=$(echo "$res" | awk '{print $15}')
cans=$(echo "$res" | awk '{print $13}')
if [ "$NAME" = unbound ]; then
	:
elif [ "${cans:-0}" = 20 ] && [ "${after:-1}" = 0 ]; then
	ok "a burst of $BURST attack queries: the 20 cached queries sent at its first answer were answered before its last"
else
	fail "a burst of $BURST attack queries: of 20 cached queries ${cans:-0} answered, ${after:-?} after the last attack answer ($res)"
fi

# 1. the secure names, the bogus answer
for z in trap. trap2.; do
	out=$(dig +time=5 +tries=1 +dnssec -b "$CLIENT" @"$RES_IP" -p "$PORT" "www.$z" A)
	if echo "$out" | grep -q 'flags:.* ad[ ;]' &&
		echo "$out" | grep -q 'status: NOERROR'; then
		ok "www.$z is secure (AD) under its 32 DNSKEYs"
	else
		fail "www.$z not secure: $(echo "$out" | grep -E 'status|flags' | tr '\n' ' ')"
	fi
	out=$(dig +time=10 +tries=1 +dnssec -b "$CLIENT" @"$RES_IP" -p "$PORT" "r0.atk.$z" A)
	if echo "$out" | grep -q 'status: SERVFAIL'; then
		if [ "$NAME" = unbound ] || echo "$out" | grep -q 'EDE: 6'; then
			ok "r0.atk.$z (RRSIGs of tag $TAG) is SERVFAIL$([ "$NAME" = petrel ] && echo ", EDE 6")"
		else
			fail "r0.atk.$z SERVFAIL without EDE 6: $(echo "$out" | grep EDE)"
		fi
	else
		fail "r0.atk.$z not SERVFAIL: $(echo "$out" | grep status)"
	fi
done

# 2. CPU per attack query (no other load)
for z in trap. trap2.; do
	t0=$(cpu_ticks "$RPID")
	res=$(python3 "$here/keytrap_load.py" "$RES_IP" "$PORT" "$CLIENT" 5 \
		"www.trap." 0 "atk1.atk.$z" 10 100 120)
	t1=$(cpu_ticks "$RPID")
	sent=$(echo "$res" | awk '/^attack/ {print $3}')
	ms=$(awk -v t=$((t1 - t0)) -v n="${sent:-0}" 'BEGIN {
		if (n == 0) print "inf"; else printf "%.1f", t * 10.0 / n }')
	echo "# $NAME $z: $(echo "$res" | grep '^attack'); CPU $((t1 - t0)) ticks"
	if [ "${sent:-0}" -gt 0 ] && awk -v m="$ms" -v x="$CPU_MAX_MS" 'BEGIN { exit !(m < x) }'; then
		ok "$z: $sent attack queries cost $ms ms of CPU each (< $CPU_MAX_MS ms)"
	else
		fail "$z: $sent attack queries cost $ms ms of CPU each (>= $CPU_MAX_MS ms)"
	fi
done

# 3. cached clients beside 10 attack queries a second
for z in trap. trap2.; do
	t0=$(cpu_ticks "$RPID")
	res=$(python3 "$here/keytrap_load.py" "$RES_IP" "$PORT" "$CLIENT" \
		"$SECS" "www.trap." "$RATE" "atk2.atk.$z" 10)
	t1=$(cpu_ticks "$RPID")
	echo "# $NAME $z: $(echo "$res" | tr '\n' ';') CPU $((t1 - t0)) ticks"
	pct=$(echo "$res" | awk '/^cached/ {print $9}')
	if awk -v p="${pct:-0}" -v m="$PCT_MIN" 'BEGIN { exit !(p >= m) }'; then
		ok "$z: $pct% of $RATE cached queries a second answered within 100 ms beside 10 attack queries a second"
	else
		fail "$z: only $pct% of cached queries answered within 100 ms ($res)"
	fi
done
kill -0 "$RPID" 2>/dev/null && ok "$NAME still running" || fail "$NAME died"
finish
