#!/usr/bin/env bash
# tests/integration/limits.sh - ip-ratelimit and dns64 against real
# clients, with NSD on loopback (`make check-limits`).
#
# usage: tests/integration/limits.sh [-k]
#   -k  keep the work directory (configs, logs)
# environment: PETREL=path, PETREL_CONTROL=path, PETREL_CHECKCONF=path
#   (the one that tells whether this petrel has dns64; default: beside
#   petrel)
#
# Addresses (port 53, root needed): NSD on 127.0.110.2 serves lim.zz and
# 2.0.192.in-addr.arpa; petrel listens on 127.0.110.1 and forwards both
# zones to NSD. Clients use source addresses of 127.0.110.0/24.
#
# 1. ip-ratelimit 10 with factor 0 and backoff: a client that sends a
#    burst of 200 queries gets at most 20 answers (the burst may straddle
#    two seconds); meanwhile another client is answered every time; the
#    flooding client is still dropped right after its burst (backoff: its
#    demand is remembered for a 2 second window), is listed by
#    ip_ratelimit_list, is counted in num.queries_ip_ratelimited, and is
#    answered again once it kept quiet for longer than the window.
# 2. ratelimit 1000 with ratelimit-for-domain sub.lim.zz 2 (a forward
#    zone of its own), factor 0, backoff: of 8 new names of sub.lim.zz
#    asked in a row some get SERVFAIL, at least 2 are answered;
#    ratelimit_list shows the zone, num.query.ratelimited counts them;
#    lim.zz itself (limit 1000) is not limited.
# 3. dns64 (module-config "dns64 iterator"): dig AAAA of a name with only
#    A records gets 64:ff9b::c000:221; a name with AAAA keeps it; dig -x
#    of the synthesized address gets the in-addr.arpa name's PTR under the
#    ip6.arpa name asked (RFC 6147 5.3.1, as Unbound answers it).
#    A petrel built without dns64 (configure --disable-dns64, which
#    refuses that module-config) runs "iterator" and skips this part with
#    a line "skip dns64: petrel built without it", counted as a skip.
# Takes /tmp/petrel-integration.lock, runs about 10 s, stops everything it
# started on exit (lib.sh). Exit 0 when every check passed, 1 otherwise,
# 77 when a tool is missing or without root.

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

ZONES="$top/testdata/zones"
RES_IP=127.0.110.1
NS_IP=127.0.110.2
FLOODER=127.0.110.10
OTHER=127.0.110.11
V6CLIENT=127.0.110.12
ZCLIENT=127.0.110.13

for tool in "$NSD" dig perl timeout; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "limits: SKIP: $tool not found (apt-get install nsd bind9-dnsutils)"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "limits: SKIP: needs root to bind port 53 on $RES_IP and $NS_IP"
	exit 77
fi
it_suite limits
if petrel_has_module dns64; then
	DNS64=1 MODULES="dns64 iterator"
else
	DNS64=0 MODULES="iterator"
fi

nsd_start lim "$NS_IP" "lim.zz.=$ZONES/lim.zz.zone" \
	"2.0.192.in-addr.arpa.=$ZONES/lim-rev.zone" ||
	{ fail "NSD did not start"; finish; }

CONF="$IT_WORK/petrel.conf"
cat > "$CONF" <<CONF
server:
  interface: $RES_IP
  port: 53
  do-ip6: no
  num-threads: 2
  do-not-query-localhost: no
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "$IT_WORK"
  pidfile: "$IT_WORK/petrel.pid"
  logfile: ""
  use-syslog: no
  verbosity: 1
  access-control: 127.0.110.0/24 allow
  qname-minimisation: no
  module-config: "$MODULES"
  ip-ratelimit: 10
  ip-ratelimit-factor: 0
  ip-ratelimit-backoff: yes
  ratelimit: 1000
  ratelimit-for-domain: sub.lim.zz 2
  ratelimit-factor: 0
  ratelimit-backoff: yes
  extended-statistics: yes
remote-control:
  control-enable: yes
  control-interface: "$IT_WORK/control.sock"
  control-use-cert: no
forward-zone:
  name: "lim.zz."
  forward-addr: $NS_IP
forward-zone:
  name: "sub.lim.zz."
  forward-addr: $NS_IP
forward-zone:
  name: "2.0.192.in-addr.arpa."
  forward-addr: $NS_IP
CONF
"$PETREL" -d -c "$CONF" > "$IT_WORK/petrel.log" 2>&1 &
RES_PID=$!
it_track "$RES_PID"
it_track_pidfile "$IT_WORK/petrel.pid"
up=0
for i in $(seq 100); do
	kill -0 "$RES_PID" 2>/dev/null || break
	if dig +time=1 +tries=1 -b "$V6CLIENT" @"$RES_IP" localhost. A \
		>/dev/null 2>&1; then
		up=1
		break
	fi
	sleep 0.1
done
if [ $up = 0 ]; then
	tail -20 "$IT_WORK/petrel.log"
	fail "petrel did not start"
	finish
fi
ctl() { "$PETREL_CONTROL" -c "$CONF" "$@" 2>&1; }
# q SOURCE ARGS...: dig from a source address
q() { timeout 10 dig +time=1 +tries=1 -b "$1" @"$RES_IP" "${@:2}" 2>&1; }
answered() { grep -q 'status: NOERROR'; }

# ------------------------------------------------------ 1. ip-ratelimit
# the name in the cache first (a flood of cached answers is the case)
q "$OTHER" www.lim.zz. A | answered || fail "www.lim.zz. A not answered"
perl "$here/flood.pl" "$RES_IP" 53 "$FLOODER" www.lim.zz. 200 500 \
	> "$IT_WORK/flood.out" 2>&1 &
FLOOD=$!
it_track $FLOOD
other_ok=0
for i in 1 2 3; do
	q "$OTHER" "o$i.lim.zz." A | answered && other_ok=$((other_ok + 1))
done
wait $FLOOD
got=$(sed -n 's/^sent 200 answered \([0-9]*\)$/\1/p' "$IT_WORK/flood.out")
echo "     flooding client: $(cat "$IT_WORK/flood.out")"
if [ -n "$got" ] && [ "$got" -ge 1 ] && [ "$got" -le 20 ]; then
	ok "ip-ratelimit: the flooding client got $got of 200 answers (limit 10/s)"
else
	fail "ip-ratelimit: the flooding client got '${got}' of 200 answers, wanted 1 to 20"
fi
if [ $other_ok = 3 ]; then
	ok "ip-ratelimit: another client was answered 3 of 3 times meanwhile"
else
	fail "ip-ratelimit: another client was answered $other_ok of 3 times"
fi
if q "$FLOODER" www.lim.zz. A | answered; then
	fail "ip-ratelimit-backoff: the flooding client is answered right after its burst"
else
	ok "ip-ratelimit-backoff: the flooding client is still dropped after its burst"
fi
list=$(ctl ip_ratelimit_list)
if echo "$list" | grep -q "^$FLOODER rate [0-9]* limit 10$"; then
	ok "ip_ratelimit_list: $(echo "$list" | grep "^$FLOODER")"
else
	fail "ip_ratelimit_list does not list $FLOODER: $list"
fi
if echo "$list" | grep -q "^$OTHER "; then
	fail "ip_ratelimit_list lists $OTHER, which is under the limit"
fi
n=$(ctl stats_noreset | sed -n 's/^total\.num\.queries_ip_ratelimited=//p')
if [ -n "$n" ] && [ "$n" -ge 180 ]; then
	ok "num.queries_ip_ratelimited=$n"
else
	fail "num.queries_ip_ratelimited='$n', wanted at least 180"
fi
sleep 3.2
if q "$FLOODER" www.lim.zz. A | answered; then
	ok "ip-ratelimit-backoff: the client is answered again after a quiet window"
else
	fail "ip-ratelimit-backoff: the client is still dropped after 3 quiet seconds"
fi

# ----------------------------------------------------- 2. ratelimit
nok=0 nsf=0
for i in 1 2 3 4 5 6 7 8; do
	case "$(q "$ZCLIENT" "z$i.sub.lim.zz." A | sed -n 's/.*status: \([A-Z]*\).*/\1/p')" in
	NOERROR) nok=$((nok + 1)) ;;
	SERVFAIL) nsf=$((nsf + 1)) ;;
	esac
done
echo "     8 new names of sub.lim.zz.: $nok answered, $nsf SERVFAIL"
if [ $nok -ge 2 ] && [ $nsf -ge 1 ] && [ $((nok + nsf)) = 8 ]; then
	ok "ratelimit-for-domain: sub.lim.zz. limited to 2 a second"
else
	fail "ratelimit-for-domain: $nok answered and $nsf SERVFAIL of 8"
fi
list=$(ctl ratelimit_list)
if echo "$list" | grep -q "^sub\.lim\.zz\. [0-9]* limit 2$" &&
	! echo "$list" | grep -q "^lim\.zz\. "; then
	ok "ratelimit_list: $(echo "$list" | grep '^sub\.lim')"
else
	fail "ratelimit_list: '$list'"
fi
n=$(ctl stats_noreset | sed -n 's/^num\.query\.ratelimited=//p')
if [ -n "$n" ] && [ "$n" = "$nsf" ]; then
	ok "num.query.ratelimited=$n"
else
	fail "num.query.ratelimited='$n', wanted $nsf"
fi
if q "$ZCLIENT" z99.lim.zz. A | answered; then
	ok "ratelimit: lim.zz. (limit 1000) is answered"
else
	fail "ratelimit: lim.zz. is not answered"
fi

# ------------------------------------------------------------ 3. dns64
dns64_checks() {
	local out
	out=$(q "$V6CLIENT" www.lim.zz. AAAA)
	if echo "$out" | grep -q "^www\.lim\.zz\..*AAAA[[:space:]]*64:ff9b::c000:221$"; then
		ok "dns64: www.lim.zz. AAAA 64:ff9b::c000:221"
	else
		fail "dns64: www.lim.zz. AAAA: $(echo "$out" | grep -A3 'ANSWER SECTION')"
	fi
	out=$(q "$V6CLIENT" v6.lim.zz. AAAA)
	if echo "$out" | grep -q "AAAA[[:space:]]*2001:db8::34$" &&
		! echo "$out" | grep -q "64:ff9b"; then
		ok "dns64: v6.lim.zz. keeps its own AAAA"
	else
		fail "dns64: v6.lim.zz. AAAA: $(echo "$out" | grep -A3 'ANSWER SECTION')"
	fi
	out=$(q "$V6CLIENT" -x 64:ff9b::c000:221)
	if echo "$out" | grep -q "^1\.2\.2\.0\.0\.0\.0\.c\.0\.0\.0\.0\.0\.0\.0\.0\.0\.0\.0\.0\.0\.0\.0\.0\.b\.9\.f\.f\.4\.6\.0\.0\.ip6\.arpa\.[[:space:]].*PTR[[:space:]]*www\.lim\.zz\.$" &&
		! echo "$out" | grep -q "CNAME"; then
		ok "dns64: dig -x 64:ff9b::c000:221 gives www.lim.zz. under the ip6.arpa name"
	else
		fail "dns64: dig -x 64:ff9b::c000:221: $(echo "$out" | grep -A3 'ANSWER SECTION')"
	fi
}
if [ $DNS64 = 1 ]; then
	dns64_checks
else
	skip "dns64: petrel built without it"
fi
kill -0 "$RES_PID" 2>/dev/null || fail "petrel died"
finish
