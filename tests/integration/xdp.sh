#!/bin/bash
# tests/integration/xdp.sh - cached answers over AF_XDP (xdp-interface,
# issue 33) in two network namespaces joined by a veth pair.
#
#   server namespace: petrel on 198.18.0.1 and 2001:2::1 port 53 (and on
#     127.0.0.1, a second listening point outside the XDP interface: the
#     ordinary socket to compare with) with xdp-interface on its end of
#     the veth; NSD on 127.0.230.2 serves xdp.example, petrel's
#     stub-zone.
#   client namespace: 198.18.0.2 and 2001:2::2; dig, kdig, kxdpgun.
#
# Checks: the XDP program is attached and the sockets bound (else the
# suite SKIPs, with the log line saying why); a miss resolves through
# NSD (num.xdp.passed counts it: the ordinary path answered it through
# the kernel socket); the same question again is answered over XDP
# (num.xdp.answers goes up by one, num.cachehits too); IPv6 likewise;
# the DNS bytes of an answer over XDP equal those of the ordinary
# socket's answer to the same query (xdp_query.py, fixed ID); TCP is
# still answered by the kernel (num.xdp.answers does not move); a
# frame with a wrong UDP checksum is dropped and counted
# (num.xdp.invalid); a proxy-protocol-port stays with the kernel; kxdpgun sends a bounded burst (2 s at 2000 qps) and
# gets at least 95% answers; after a reload the hits are still answered
# over XDP; with max-udp-size 4096 (more than a frame holds: the query
# is copied out of the frame and the answer back, where by default it
# is answered in the frame) the bytes still equal the socket's; after a
# reload that adds a listening point the new one is
# too; killed, it leaves no XDP program behind. Addresses: 198.18.0.0/15 and 2001:2::/48
# only (the benchmarking ranges) and loopback; everything it makes
# (namespaces, veth, processes) is removed on exit.
#
# Needs root, ip, nsd, dig, kdig, kxdpgun, python3, a petrel built with
# libxdp. SKIPs (exit 0, one line) when namespaces or XDP cannot be used.
# Run: make check-xdp. XDP_THREAD_MODEL, XDP_BACKEND and XDP_THREADS
# pick the thread model, the event backend and num-threads (default:
# petrel's defaults, 1 worker); XDP_QUEUES the veth's queues (1);
# XDP_USER a user to drop privileges to; XDP_EXTRA lines for petrel's
# server: clause ("\n" separated, e.g. "shared-cache: yes").
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
: "${NSD:=/usr/sbin/nsd}"
: "${KXDPGUN:=/usr/sbin/kxdpgun}"

skip() { echo "xdp: SKIP: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, XDP)"
for t in ip dig kdig python3 "$NSD"; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not found"
done
it_suite xdp
"$PETREL" -V | grep -q '^libxdp: yes' || skip "petrel built without libxdp"

SUF=$$
NS_S=pxdps$SUF
NS_C=pxdpc$SUF
IF_S=pxs$SUF
IF_C=pxc$SUF
W=$IT_WORK
net_cleanup() {
	ip netns del "$NS_S" 2>/dev/null
	ip netns del "$NS_C" 2>/dev/null
}
trap 'it_cleanup; net_cleanup' EXIT
S() { ip netns exec "$NS_S" "$@"; }
C() { ip netns exec "$NS_C" "$@"; }

ip netns add "$NS_S" 2>/dev/null || skip "cannot create network namespaces"
ip netns add "$NS_C" || skip "cannot create network namespaces"
ip link add "$IF_S" netns "$NS_S" numtxqueues "${XDP_QUEUES:-1}" \
	numrxqueues "${XDP_QUEUES:-1}" type veth peer name "$IF_C" \
	netns "$NS_C" numtxqueues "${XDP_QUEUES:-1}" \
	numrxqueues "${XDP_QUEUES:-1}" || skip "cannot create a veth pair"
S ip link set lo up
C ip link set lo up
S ip addr add 198.18.0.1/24 dev "$IF_S"
C ip addr add 198.18.0.2/24 dev "$IF_C"
S ip -6 addr add 2001:2::1/64 dev "$IF_S" nodad
C ip -6 addr add 2001:2::2/64 dev "$IF_C" nodad
S ip link set "$IF_S" up
C ip link set "$IF_C" up
# a veth hands its peer UDP datagrams whose checksum was left for the
# "hardware" to fill in (checksum offload), which a veth never does: the
# fast path checks UDP checksums and would drop them. Real NICs fill
# them in; on a veth the sender's offload is turned off (doc/xdp.md).
command -v ethtool >/dev/null 2>&1 || skip "ethtool not found"
C ethtool -K "$IF_C" tx off >/dev/null
S ethtool -K "$IF_S" tx off >/dev/null

# ---------------------------------------------------------------- NSD
mkdir -p "$W/nsd"
cat > "$W/nsd/xdp.example.zone" <<'EOF'
$TTL 3600
@	SOA	ns.xdp.example. admin.xdp.example. 1 3600 900 604800 3600
	NS	ns.xdp.example.
ns	A	127.0.230.2
www	A	198.18.1.80
www	AAAA	2001:2::80
EOF
for i in $(seq 1 50); do
	echo "n$i	A	198.18.2.$i" >> "$W/nsd/xdp.example.zone"
done
cat > "$W/nsd/nsd.conf" <<EOF
server:
  ip-address: 127.0.230.2
  port: 53
  username: ""
  chroot: ""
  zonesdir: "$W/nsd"
  pidfile: "$W/nsd/nsd.pid"
  database: ""
  zonelistfile: "$W/nsd/zone.list"
  xfrdfile: "$W/nsd/xfrd.state"
  xfrdir: "$W/nsd"
  logfile: "$W/nsd/nsd.log"
  verbosity: 0
  server-count: 1
  reuseport: no
remote-control:
  control-enable: no
zone:
  name: "xdp.example"
  zonefile: "$W/nsd/xdp.example.zone"
EOF
S "$NSD" -d -c "$W/nsd/nsd.conf" > "$W/nsd/nsd.out" 2>&1 9>&- &
it_track $!
it_track_pidfile "$W/nsd/nsd.pid"
for i in $(seq 50); do
	S dig +time=1 +tries=1 +norecurse @127.0.230.2 xdp.example SOA \
		2>/dev/null | grep -q 'status: NOERROR' && break
	sleep 0.1
done

# ------------------------------------------------------------- petrel
# (the root hints point at loopback: nothing but the stub is asked)
echo ". 3600000 NS a.root.test." > "$W/root.hints"
echo "a.root.test. 3600000 A 127.0.230.9" >> "$W/root.hints"
cat > "$W/petrel.conf" <<EOF
server:
  interface: 198.18.0.1
  interface: 2001:2::1
  interface: 127.0.0.1
  interface: 198.18.0.1@5353
  proxy-protocol-port: 5353
  port: 53
  num-threads: ${XDP_THREADS:-1}
  ${XDP_THREAD_MODEL:+thread-model: $XDP_THREAD_MODEL}
  ${XDP_BACKEND:+event-backend: $XDP_BACKEND}
  do-daemonize: no
  username: "${XDP_USER:-}"
  chroot: ""
  directory: "$W"
  pidfile: "$W/resolver.pid"
  logfile: "$W/petrel.log"
  use-syslog: no
  verbosity: 1
  access-control: 198.18.0.0/15 allow
  access-control: 2001:2::/48 allow
  access-control: 127.0.0.0/8 allow
  do-not-query-localhost: no
  root-hints: "$W/root.hints"
  extended-statistics: yes
  xdp-interface: $IF_S
$(printf '%b\n' "${XDP_EXTRA:-}" | sed 's/^/  /')
remote-control:
  control-enable: yes
  control-interface: "$W/control.sock"
  control-use-cert: no
stub-zone:
  name: "xdp.example"
  stub-addr: 127.0.230.2
EOF
S "$PETREL" -d -c "$W/petrel.conf" > "$W/petrel.out" 2>&1 9>&- &
it_track $!
for i in $(seq 100); do
	"$PETREL_CONTROL" -c "$W/petrel.conf" status >/dev/null 2>&1 && break
	sleep 0.1
done
if ! grep -q "xdp-interface $IF_S: " "$W/petrel.log"; then
	cat "$W/petrel.log" >&2
	if grep -q "xdp-interface $IF_S.*kernel's UDP sockets" "$W/petrel.log"
	then
		skip "XDP cannot be used here: $(grep -m1 "xdp-interface" \
			"$W/petrel.log" | sed 's/^.*xdp-interface //')"
	fi
	fail "petrel did not start with xdp-interface"
	finish
fi
ok "petrel runs XDP: $(grep -m1 "xdp-interface $IF_S: " "$W/petrel.log" |
	sed 's/^.*xdp-interface //')"

# stat NAME: total.NAME (or NAME, an extended one) from petrel-control
# stats_noreset
stat() {
	"$PETREL_CONTROL" -c "$W/petrel.conf" stats_noreset |
		awk -F= -v k="$1" '$1 == "total." k || $1 == k { print $2
			f = 1; exit } END { if (!f) print 0 }'
}

# 1. a miss: resolved through NSD, answered by the ordinary path
p0=$(stat num.xdp.passed)
a0=$(stat num.xdp.answers)
out=$(C dig +time=2 +tries=1 @198.18.0.1 www.xdp.example A)
if echo "$out" | grep -q 'status: NOERROR' &&
	echo "$out" | grep -q '198.18.1.80'; then
	ok "miss resolved through NSD (over the veth)"
else
	fail "miss: $out"
fi
p1=$(stat num.xdp.passed)
a1=$(stat num.xdp.answers)
[ "$p1" -gt "$p0" ] && [ "$a1" = "$a0" ] &&
	ok "the miss went to the ordinary path (num.xdp.passed $p0 -> $p1)" ||
	fail "miss: num.xdp.passed $p0 -> $p1, num.xdp.answers $a0 -> $a1"

# 2. the same question: a hit answered over XDP
h0=$(stat num.cachehits)
out=$(C dig +time=2 +tries=1 @198.18.0.1 www.xdp.example A)
a2=$(stat num.xdp.answers)
h1=$(stat num.cachehits)
if echo "$out" | grep -q '198.18.1.80' && [ "$a2" = $((a1 + 1)) ] &&
	[ "$h1" = $((h0 + 1)) ]; then
	ok "hit answered over XDP (num.xdp.answers $a1 -> $a2, num.cachehits $h0 -> $h1)"
else
	fail "hit: num.xdp.answers $a1 -> $a2, num.cachehits $h0 -> $h1: $out"
fi

# 3. IPv6: a miss, then a hit over XDP (kdig)
C kdig +time=2 +retry=0 @2001:2::1 www.xdp.example AAAA >/dev/null 2>&1
a3=$(stat num.xdp.answers)
out=$(C kdig +time=2 +retry=0 @2001:2::1 www.xdp.example AAAA 2>&1)
a4=$(stat num.xdp.answers)
if echo "$out" | grep -q '2001:2::80' && [ "$a4" = $((a3 + 1)) ]; then
	ok "IPv6 hit answered over XDP (num.xdp.answers $a3 -> $a4)"
else
	fail "IPv6 hit: num.xdp.answers $a3 -> $a4: $out"
fi

# 4. the DNS bytes over XDP equal the ordinary socket's (same query,
# same ID; the TTLs tick by the second, so up to 3 tries)
same=0
for i in 1 2 3; do
	b0=$(stat num.xdp.answers)
	x=$(C python3 "$HERE/xdp_query.py" 198.18.0.1 www.xdp.example A)
	b1=$(stat num.xdp.answers)
	k=$(S python3 "$HERE/xdp_query.py" 127.0.0.1 www.xdp.example A)
	b2=$(stat num.xdp.answers)
	if [ -n "$x" ] && [ "$x" = "$k" ] && [ "$b1" = $((b0 + 1)) ] &&
		[ "$b2" = "$b1" ]; then
		same=1
		break
	fi
done
[ $same = 1 ] && ok "answer over XDP = answer over the socket, byte for byte (${#x} hex digits; num.xdp.answers $b0 -> $b1 -> $b2)" ||
	fail "XDP answer $x ($b0 -> $b1), socket answer $k ($b1 -> $b2)"

# 5. TCP: answered by the kernel, not over XDP
a5=$(stat num.xdp.answers)
out=$(C dig +tcp +time=2 +tries=1 @198.18.0.1 www.xdp.example A)
a6=$(stat num.xdp.answers)
echo "$out" | grep -q '198.18.1.80' && [ "$a6" = "$a5" ] &&
	ok "TCP answered by the kernel path" || fail "TCP: $a5 -> $a6: $out"

# 6. a frame with a wrong UDP checksum is dropped and counted (raw
# socket in the client namespace)
i0=$(stat num.xdp.invalid)
C python3 "$HERE/xdp_query.py" --bad-checksum 198.18.0.1 \
	www.xdp.example A >/dev/null 2>&1
i1=$(stat num.xdp.invalid)
[ "$i1" -gt "$i0" ] && ok "bad UDP checksum dropped (num.xdp.invalid $i0 -> $i1)" ||
	fail "bad checksum: num.xdp.invalid $i0 -> $i1"

# 6b. a proxy-protocol-port (its datagrams carry a PROXY v2 header that
# the fast path does not read) stays with the kernel: a query without a
# header is dropped there, not answered, and never seen over XDP
a0=$(stat num.xdp.answers)
p0=$(stat num.xdp.passed)
out=$(C dig +time=1 +tries=1 @198.18.0.1 -p 5353 www.xdp.example A 2>&1)
a1=$(stat num.xdp.answers)
p1=$(stat num.xdp.passed)
if [ "$a1" = "$a0" ] && [ "$p1" = "$p0" ] && ! echo "$out" | grep -q 'status:'; then
	ok "proxy-protocol-port left to the kernel (no answer without a PROXY header)"
else
	fail "proxy-protocol-port: xdp answers $a0 -> $a1, passed $p0 -> $p1: $out"
fi

# 7. kxdpgun: a bounded burst of cached names
if command -v "$KXDPGUN" >/dev/null 2>&1; then
	for i in $(seq 1 50); do
		C dig +time=2 +tries=1 @198.18.0.1 "n$i.xdp.example" A >/dev/null
		echo "n$i.xdp.example A"
	done > "$W/kxdpgun.queries"
	a7=$(stat num.xdp.answers)
	C "$KXDPGUN" -t 2 -Q 2000 -F 1 -i "$W/kxdpgun.queries" 198.18.0.1 \
		> "$W/kxdpgun.out" 2>&1
	a8=$(stat num.xdp.answers)
	sent=$(awk '/total queries:/ { print $3; exit }' "$W/kxdpgun.out")
	got=$(awk '/total replies:/ { print $3; exit }' "$W/kxdpgun.out")
	if [ -n "$sent" ] && [ -n "$got" ] && [ "$sent" -gt 0 ] &&
		[ $((got * 100)) -ge $((sent * 95)) ] &&
		[ $((a8 - a7)) -ge $((got * 95 / 100)) ]; then
		ok "kxdpgun: $got of $sent answered, num.xdp.answers +$((a8 - a7))"
	else
		fail "kxdpgun: sent '$sent' got '$got' (xdp answers +$((a8 - a7))): $(cat "$W/kxdpgun.out")"
	fi
else
	echo "kxdpgun not found (knot-dnsutils): burst not run"
fi

# 8. a reload keeps the sockets: the workers start again on them
r0=$(stat num.xdp.answers)
"$PETREL_CONTROL" -c "$W/petrel.conf" reload >/dev/null 2>&1
for i in $(seq 50); do
	"$PETREL_CONTROL" -c "$W/petrel.conf" status >/dev/null 2>&1 && break
	sleep 0.1
done
# (a reload empties the cache: the first query is a miss again)
C dig +time=2 +tries=1 @198.18.0.1 n1.xdp.example A >/dev/null
out=$(C dig +time=2 +tries=1 @198.18.0.1 n1.xdp.example A)
r1=$(stat num.xdp.answers)
echo "$out" | grep -q 'status: NOERROR' && [ "$r1" -gt "$r0" ] &&
	ok "after a reload: answered over XDP (num.xdp.answers $r0 -> $r1)" ||
	fail "after a reload: num.xdp.answers $r0 -> $r1: $out"

# 8a. with max-udp-size above what a frame holds (1472 bytes of UDP
# payload on a 1500 MTU), the query is copied into the worker's buffer
# and the answer back into the frame (below it, it is answered in the
# frame itself): the bytes are the socket's all the same
sed -i 's/^  xdp-interface: \(.*\)$/  xdp-interface: \1\n  max-udp-size: 4096/' \
	"$W/petrel.conf"
"$PETREL_CONTROL" -c "$W/petrel.conf" reload >/dev/null 2>&1
for i in $(seq 50); do
	"$PETREL_CONTROL" -c "$W/petrel.conf" status >/dev/null 2>&1 && break
	sleep 0.1
done
C dig +time=2 +tries=1 @198.18.0.1 www.xdp.example A >/dev/null
same=0
for i in 1 2 3; do
	b0=$(stat num.xdp.answers)
	x=$(C python3 "$HERE/xdp_query.py" 198.18.0.1 www.xdp.example A)
	b1=$(stat num.xdp.answers)
	k=$(S python3 "$HERE/xdp_query.py" 127.0.0.1 www.xdp.example A)
	if [ -n "$x" ] && [ "$x" = "$k" ] && [ "$b1" = $((b0 + 1)) ]; then
		same=1
		break
	fi
done
[ $same = 1 ] && ok "max-udp-size 4096 (copied out of the frame and back): answer over XDP = answer over the socket (num.xdp.answers $b0 -> $b1)" ||
	fail "max-udp-size 4096: XDP answer $x ($b0 -> $b1), socket answer $k"

# 8b. a reload that changes the listening points (one more interface
# line): the old set lets go of the queues before the new one binds them
# (not after a privilege drop: new sockets on port 53, and XDP, need
# root, so such a reload is refused whole)
if [ -n "${XDP_USER:-}" ]; then
	echo "reload with a new interface: not run with XDP_USER (needs root)"
else
sed -i 's/^  interface: 127.0.0.1$/  interface: 127.0.0.1\n  interface: 198.18.0.1@5300/' \
	"$W/petrel.conf"
"$PETREL_CONTROL" -c "$W/petrel.conf" reload >/dev/null 2>&1
for i in $(seq 50); do
	"$PETREL_CONTROL" -c "$W/petrel.conf" status >/dev/null 2>&1 && break
	sleep 0.1
done
# (counted from here: forked workers stopped and started again by such a
# reload do not carry their counters over)
C dig +time=2 +tries=1 @198.18.0.1 n2.xdp.example A >/dev/null
a0=$(stat num.xdp.answers)
out=$(C dig +time=2 +tries=1 @198.18.0.1 -p 5300 n2.xdp.example A)
a1=$(stat num.xdp.answers)
if echo "$out" | grep -q 'status: NOERROR' && [ "$a1" -gt "$a0" ]; then
	ok "reload with a new interface: the new port answered over XDP (num.xdp.answers $a0 -> $a1)"
else
	fail "reload with a new interface: num.xdp.answers $a0 -> $a1: $out; $(grep xdp-interface "$W/petrel.log" | tail -2)"
fi
fi

# the server is still well
S dig +time=2 +tries=1 @127.0.0.1 www.xdp.example A | grep -q 198.18.1.80 &&
	ok "petrel still answers" || fail "petrel does not answer after the tests"

# 9. killed (SIGKILL: no clean-up of its own), petrel leaves no XDP
# program on the interface: the BPF link dies with the last process that
# holds it
S ip link show "$IF_S" | grep -q 'prog/xdp' ||
	fail "no XDP program on $IF_S while petrel runs"
pid=$(cat "$W/resolver.pid" 2>/dev/null)
if [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; then
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 0.5
	if S ip link show "$IF_S" | grep -q 'prog/xdp'; then
		fail "an XDP program is left on $IF_S after SIGKILL: $(S ip link show "$IF_S")"
	else
		ok "SIGKILL: no XDP program left on $IF_S"
	fi
else
	fail "no petrel pid to kill"
fi
finish
