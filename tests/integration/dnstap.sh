#!/bin/bash
# tests/integration/dnstap.sh - dnstap output read back by real tools.
#
#   make check-dnstap      (or: PETREL=./petrel bash tests/integration/dnstap.sh)
#
# Needs root (NSD on 127.0.150.1 port 53), nsd, dig, fstrm_capture
# (Debian fstrm-bin) and dnstap-read (Debian bind9-utils); about 15 s.
# Everything listens on 127.0.150.0/24 and the resolver ports
# 61680-61689.
#
# NSD on 127.0.150.1 serves the root, tap. and fwd.zz.; petrel resolves
# tap. from its root hints (RESOLVER_QUERY/RESPONSE) and forwards fwd.zz.
# (FORWARDER_QUERY/RESPONSE, RD set), and writes dnstap to fstrm_capture
# on a unix socket. dnstap-read decodes the capture (an independent
# reader of the schema) and the checks count each message type:
#   1. every type switched on is there: CQ and CR for each client query
#      (UDP and TCP; a cached answer too), RQ/RR for the root and tap.,
#      FQ/FR for fwd.zz., the identity and version in the YAML;
#   2. a type switched off is absent;
#   3. dnstap-sample-rate: 2 logs one client query in two;
#   4. thread-model: fork with 2 workers: each child writes its own
#      stream, nothing is lost;
#   5. no collector listening: every query is still answered.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

: "${PETREL:=$(pwd)/petrel}"
NET=127.0.150
PORT=61680

for t in "$NSD" dig fstrm_capture dnstap-read "$PETREL"; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "dnstap: SKIP: $t not found"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "dnstap: SKIP: needs root (NSD on port 53)"
	exit 77
fi
if ! "$PETREL" -V | grep -q '^dnstap: yes'; then
	echo "dnstap: SKIP: this petrel is built without dnstap"
	exit 77
fi

exec 9>/tmp/petrel-integration.lock
if [ "${IT_LOCK:-1}" != 0 ] && ! flock -w 300 9; then
	echo "dnstap: another run holds /tmp/petrel-integration.lock"
	exit 1
fi

it_init petrel-dnstap
W=$IT_WORK
PASSED=0
FAILED=0
ok()   { echo "ok   $*"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $*"; FAILED=$((FAILED + 1)); }

cat > "$W/root.zone" <<ZONE
. 3600 IN SOA ns.tap. host.tap. 1 3600 600 86400 60
. 3600 IN NS ns.tap.
tap. 3600 IN NS ns.tap.
ns.tap. 3600 IN A $NET.1
ZONE
cat > "$W/tap.zone" <<ZONE
tap. 3600 IN SOA ns.tap. host.tap. 1 3600 600 86400 60
tap. 3600 IN NS ns.tap.
ns.tap. 3600 IN A $NET.1
www.tap. 3600 IN A 192.0.2.7
ZONE
cat > "$W/fwd.zone" <<ZONE
fwd.zz. 3600 IN SOA ns.fwd.zz. host.fwd.zz. 1 3600 600 86400 60
fwd.zz. 3600 IN NS ns.fwd.zz.
ns.fwd.zz. 3600 IN A $NET.1
www.fwd.zz. 3600 IN A 192.0.2.8
ZONE
printf '. 3600000 NS ns.tap.\nns.tap. 3600000 A %s.1\n' "$NET" > "$W/root.hints"
nsd_start auth "$NET.1" .="$W/root.zone" tap.="$W/tap.zone" \
	fwd.zz.="$W/fwd.zone" || { echo "dnstap: 0 passed, 1 failed"; exit 1; }

# conf NAME PORT THREADS MODEL DNSTAP-LINES: a petrel config in $W/NAME.conf
conf() {
	local name=$1 port=$2 threads=$3 model=$4 dt=$5
	mkdir -p "$W/$name"
	resolver_conf "$W/$name.conf" dir="$W/$name" port="$port" \
		threads="$threads" model="$model" hints="$W/root.hints" \
		control=no
	{
		echo "forward-zone:"
		echo "  name: fwd.zz."
		echo "  forward-addr: $NET.1"
		echo "dnstap:"
		printf '%b\n' "$dt" | sed 's/^/  /'
	} >> "$W/$name.conf"
}

# capture NAME: start fstrm_capture on $W/NAME.sock writing $W/NAME.fstrm
capture() {
	rm -f "$W/$1.sock" "$W/$1.fstrm"
	fstrm_capture -t protobuf:dnstap.Dnstap -u "$W/$1.sock" \
		-w "$W/$1.fstrm" >"$W/$1.capture.log" 2>&1 &
	CAP_PID=$!
	it_track "$CAP_PID"
	# listening, not only bound (the file exists from bind() on, and a
	# connect before listen() is refused)
	for _ in $(seq 100); do
		ss -xl 2>/dev/null | grep -qF "$W/$1.sock" && return 0
		sleep 0.1
	done
	echo "fstrm_capture did not make $W/$1.sock" >&2
	return 1
}

# writers NAME N: wait until N writers (one per worker) are connected to
# the collector; messages from before a writer's connection are dropped,
# so the queries of a check wait for them
writers() {
	for _ in $(seq 100); do
		[ "$(ss -xa 2>/dev/null | awk -v p="$W/$1.sock" \
			'$2 == "ESTAB" && $5 == p' | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "dnstap: $2 writers did not connect to $W/$1.sock" >&2
	return 1
}

# finish NAME: stop petrel (its writers flush and close their streams),
# then the capture, and decode the file to $W/NAME.txt and .yaml
finish() {
	resolver_stop
	sleep 0.3
	kill "$CAP_PID" 2>/dev/null
	wait "$CAP_PID" 2>/dev/null
	dnstap-read "$W/$1.fstrm" > "$W/$1.txt" 2>"$W/$1.read.err"
	dnstap-read -y "$W/$1.fstrm" > "$W/$1.yaml" 2>>"$W/$1.read.err"
}

# count NAME TYPE [PATTERN]: the lines of TYPE (CQ, RR, ...) in NAME.txt
count() {
	awk -v t="$2" -v p="${3:-}" '$3 == t && (p == "" || index($0, p))' \
		"$W/$1.txt" | wc -l
}

q() { dig +time=2 +tries=1 @127.0.0.1 -p "$PORT" "$@"; }

# ---------------------------------------------------------------- 1, 2
PORT=61680
conf all "$PORT" 1 "" "dnstap-enable: yes\ndnstap-socket-path: \"$W/all.sock\"\n\
dnstap-send-identity: yes\ndnstap-identity: \"tap-test\"\n\
dnstap-send-version: yes\ndnstap-version: \"v-test\"\n\
dnstap-log-client-query-messages: yes\n\
dnstap-log-client-response-messages: yes\n\
dnstap-log-resolver-query-messages: yes\n\
dnstap-log-resolver-response-messages: yes\n\
dnstap-log-forwarder-query-messages: yes\n\
dnstap-log-forwarder-response-messages: no"
capture all || exit 1
resolver_start "$W/all.conf" "$W/all.log" "" || { echo "dnstap: 0 passed, 1 failed"; exit 1; }
writers all 1
a1=$(q +short www.tap. A)
a2=$(q +short www.tap. A)
a3=$(q +short +tcp www.tap. A)
a4=$(q +short www.fwd.zz. A)
finish all
[ "$a1 $a2 $a3 $a4" = "192.0.2.7 192.0.2.7 192.0.2.7 192.0.2.8" ] &&
	ok "answers through petrel with dnstap on" ||
	fail "answers: '$a1' '$a2' '$a3' '$a4'"
# resolver_start's probe query (localhost. A) is a client query too
n=$(count all CQ www.tap/IN/A)
[ "$n" = 3 ] && ok "3 CLIENT_QUERY for www.tap (UDP miss, UDP hit, TCP)" ||
	fail "CLIENT_QUERY www.tap: $n, want 3"
n=$(count all CR www.tap/IN/A)
[ "$n" = 3 ] && ok "3 CLIENT_RESPONSE for www.tap" ||
	fail "CLIENT_RESPONSE www.tap: $n, want 3"
n=$(awk '$3 == "CQ" && / TCP / && /www.tap\/IN\/A/' "$W/all.txt" | wc -l)
[ "$n" = 1 ] && ok "the TCP query is logged as TCP" ||
	fail "CQ over TCP: $n, want 1"
n=$(count all RQ)
m=$(count all RR)
[ "$n" -ge 2 ] && [ "$n" = "$m" ] &&
	ok "RESOLVER_QUERY/RESPONSE: $n of each, to the root and tap." ||
	fail "RESOLVER_QUERY $n, RESOLVER_RESPONSE $m (want >= 2, equal)"
n=$(count all RQ "$NET.1:53")
[ "$n" = "$(count all RQ)" ] && ok "resolver messages name the server $NET.1:53" ||
	fail "RQ lines without the server address: $(count all RQ) vs $n"
n=$(count all FQ www.fwd.zz/IN/A)
[ "$n" = 1 ] && ok "FORWARDER_QUERY for www.fwd.zz" ||
	fail "FORWARDER_QUERY www.fwd.zz: $n, want 1"
n=$(count all FR)
[ "$n" = 0 ] && ok "FORWARDER_RESPONSE switched off: none" ||
	fail "FORWARDER_RESPONSE: $n, want 0 (switched off)"
n=$(count all RQ www.fwd.zz)
[ "$n" = 0 ] && ok "the forwarded query is not a RESOLVER_QUERY" ||
	fail "RESOLVER_QUERY for www.fwd.zz: $n"
grep -q 'identity: tap-test' "$W/all.yaml" &&
grep -q 'version: v-test' "$W/all.yaml" &&
	ok "identity and version in every message (YAML)" ||
	fail "identity/version missing: $(head -5 "$W/all.yaml")"
n=$(grep -c '^type: MESSAGE' "$W/all.yaml")
t=$(wc -l < "$W/all.txt")
[ "$n" = "$t" ] && [ "$t" -gt 0 ] && ok "dnstap-read decodes all $t frames" ||
	fail "decoded frames: text $t, yaml $n; $(cat "$W/all.read.err")"

# ---------------------------------------------------------------- 3
PORT=61681
conf sample "$PORT" 1 "" "dnstap-enable: yes\ndnstap-socket-path: \"$W/sample.sock\"\n\
dnstap-log-client-query-messages: yes\ndnstap-sample-rate: 2"
capture sample || exit 1
resolver_start "$W/sample.conf" "$W/sample.log" "" || fail "sample: petrel did not start"
writers sample 1
for i in $(seq 10); do q +short www.tap. A >/dev/null; done
finish sample
n=$(count sample CQ www.tap/IN/A)
all=$(count sample CQ)
# the start-up probe (localhost.) and the 10 queries, one in two logged:
# 5 or 6 of the 10, depending on where the probes put the count
[ "$n" -ge 5 ] && [ "$n" -le 6 ] && [ "$all" -le 6 ] &&
	ok "dnstap-sample-rate 2: $n of 10 client queries logged ($all in all)" ||
	fail "dnstap-sample-rate 2: $n of 10 logged ($all in all), want 5 or 6"

# ---------------------------------------------------------------- 4
PORT=61682
conf fork "$PORT" 2 fork "dnstap-enable: yes\ndnstap-socket-path: \"$W/fork.sock\"\n\
dnstap-log-client-query-messages: yes\ndnstap-log-client-response-messages: yes"
capture fork || exit 1
resolver_start "$W/fork.conf" "$W/fork.log" "" || fail "fork: petrel did not start"
writers fork 2 || fail "fork: the 2 workers' writers did not connect"
for i in $(seq 20); do q +short "n$i.tap." A >/dev/null; done
finish fork
n=$(awk '$3 == "CQ" && / n[0-9]+\.tap\/IN\/A/' "$W/fork.txt" | wc -l)
m=$(awk '$3 == "CR" && / n[0-9]+\.tap\/IN\/A/' "$W/fork.txt" | wc -l)
[ "$n" = 20 ] && [ "$m" = 20 ] &&
	ok "thread-model fork, 2 workers: 20 CQ and 20 CR" ||
	fail "fork: $n CQ, $m CR, want 20 and 20"

# ---------------------------------------------------------------- 5
PORT=61683
conf none "$PORT" 1 "" "dnstap-enable: yes\ndnstap-socket-path: \"$W/nobody.sock\"\n\
dnstap-log-client-query-messages: yes\ndnstap-log-client-response-messages: yes"
resolver_start "$W/none.conf" "$W/none.log" "" || fail "none: petrel did not start"
good=0
for i in $(seq 30); do
	[ "$(q +short www.tap. A)" = 192.0.2.7 ] && good=$((good + 1))
done
resolver_stop
[ "$good" = 30 ] && ok "no collector: 30 of 30 queries answered" ||
	fail "no collector: $good of 30 answered"

echo "dnstap: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
