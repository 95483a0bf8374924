#!/bin/bash
# tests/integration/dnstap.sh - dnstap output read back by real tools.
#
#   make check-dnstap      (or: PETREL=./petrel bash tests/integration/dnstap.sh)
#
# Needs root (NSD on 127.0.150.1 port 53, tshark on lo), nsd, dig,
# fstrm_capture (Debian fstrm-bin), dnstap-read (Debian bind9-utils),
# openssl, socat and tshark; about 30 s. Everything listens on
# 127.0.150.0/24 and the resolver ports 61680-61683.
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
#   6. dnstap over TLS to dnstap-ip: a collector made of socat
#      (OPENSSL-LISTEN, asking for a client certificate) in front of
#      fstrm_capture, certificates made here with openssl:
#      a. the right CA, server name and client certificate: the
#         messages arrive and decode; without dnstap-tls-server-name
#         the certificate's IP address is checked: they arrive too;
#      b. a wrong dnstap-tls-server-name, c. an untrusted CA (the
#         collector's chain is not in dnstap-tls-cert-bundle), d. no
#         client certificate: nothing arrives, every query is answered,
#         the log says why;
#      e. dnstap-tls: no to a TCP fstrm_capture: the control for f;
#      f. tshark on lo: the query name is in the plain TCP stream of e
#         and nowhere in the TLS stream of a;
#      g. a collector that takes the connection and never answers the
#         handshake: the queries are answered meanwhile, and after the
#         5 s timeout the log says so.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

: "${PETREL:=$(pwd)/petrel}"
NET=127.0.150
PORT=61680

for t in "$NSD" dig fstrm_capture dnstap-read openssl socat tshark \
	"$PETREL"; do
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

it_suite dnstap
W=$IT_WORK

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

# capture_end NAME: stop petrel (its writers flush and close their streams),
# then the capture, and decode the file to $W/NAME.txt and .yaml
capture_end() {
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
capture_end all
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
capture_end sample
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
capture_end fork
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

# ---------------------------------------------------------------- 6
# certificates: a CA the collector and petrel's client certificate come
# from, and a CA petrel must not trust
cert() { # cert NAME CA SAN: key and certificate NAME signed by CA
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$W/$1.key" -out "$W/$1.csr" -subj "/CN=$1" 2>/dev/null &&
	printf 'subjectAltName=%s\n' "$3" > "$W/$1.ext" &&
	openssl x509 -req -in "$W/$1.csr" -CA "$W/$2.pem" -CAkey "$W/$2.key" \
		-CAcreateserial -out "$W/$1.pem" -days 2 \
		-extfile "$W/$1.ext" 2>/dev/null
}
for ca in ca otherca; do
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$W/$ca.key" -out "$W/$ca.pem" -days 2 \
		-subj "/CN=petrel dnstap test $ca" 2>/dev/null ||
		{ echo "dnstap: openssl failed"; exit 1; }
done
cert collector ca "DNS:collector.test,IP:$NET.2" &&
cert client ca "DNS:petrel.test" || { echo "dnstap: openssl failed"; exit 1; }
chmod 600 "$W/client.key"

# the packets of the TLS (a-d) and plain TCP (e) collectors
tshark -i lo -n -q -w "$W/lo.pcap" -f "net $NET.0/24 and tcp port 6000" \
	> "$W/tshark.out" 2>&1 &
TS_PID=$!
it_track "$TS_PID"
for _ in $(seq 100); do
	grep -q "Capturing on" "$W/tshark.out" && break
	sleep 0.1
done
grep -q "Capturing on" "$W/tshark.out" ||
	{ echo "dnstap: tshark did not start: $(cat "$W/tshark.out")"; exit 1; }

# socat: TLS on $NET.2 port 6000 (a client certificate from ca asked
# for), each connection passed on to fstrm_capture on $W/tls.sock
socat OPENSSL-LISTEN:6000,bind=$NET.2,reuseaddr,fork,cert="$W/collector.pem",key="$W/collector.key",cafile="$W/ca.pem",verify=1 \
	UNIX-CONNECT:"$W/tls.sock" > "$W/socat.log" 2>&1 &
it_track $!
for _ in $(seq 100); do
	ss -tln 2>/dev/null | grep -q "$NET.2:6000 " && break
	sleep 0.1
done

# tlsconf NAME PORT NAME-LINE BUNDLE CLIENT-CERT(yes/no)
tlsconf() {
	local c=""
	[ "$5" = yes ] && c="\ndnstap-tls-client-key-file: \"$W/client.key\"\n\
dnstap-tls-client-cert-file: \"$W/client.pem\""
	conf "$1" "$2" 1 "" "dnstap-enable: yes\ndnstap-ip: $NET.2@6000\n\
$3\ndnstap-tls-cert-bundle: \"$W/$4.pem\"$c\n\
dnstap-log-client-query-messages: yes\n\
dnstap-log-client-response-messages: yes"
}

# a: the right certificates; no dnstap-tls line (yes is the default)
PORT=61680
tlsconf tls "$PORT" "dnstap-tls-server-name: collector.test" ca yes
capture tls || exit 1
resolver_start "$W/tls.conf" "$W/tls.log" "" || fail "tls: petrel did not start"
writers tls 1 || fail "tls: the writer did not connect through TLS"
a1=$(q +short www.tap. A)
a2=$(q +short +tcp www.tap. A)
capture_end tls
n=$(count tls CQ www.tap/IN/A)
m=$(count tls CR www.tap/IN/A)
[ "$a1 $a2" = "192.0.2.7 192.0.2.7" ] && [ "$n" = 2 ] && [ "$m" = 2 ] &&
	ok "TLS to the collector: 2 CLIENT_QUERY, 2 CLIENT_RESPONSE decoded" ||
	fail "TLS: answers '$a1' '$a2', $n CQ, $m CR (want 2, 2); $(grep dnstap "$W/tls.log" | tail -3)"
grep -q "dnstap: TLS to $NET.2@6000#collector.test: connected (TLS" "$W/tls.log" &&
	ok "TLS: the log says connected" ||
	fail "TLS: no 'connected' line: $(grep dnstap "$W/tls.log" | tail -3)"

# a, without a server name: the collector's certificate names $NET.2
PORT=61681
tlsconf tlsip "$PORT" "" ca yes
capture tlsip || exit 1
# socat passes the connections on to $W/tls.sock
rm -f "$W/tls.sock"
ln -s "$W/tlsip.sock" "$W/tls.sock"
resolver_start "$W/tlsip.conf" "$W/tlsip.log" "" || fail "tlsip: petrel did not start"
writers tlsip 1 || fail "tlsip: the writer did not connect through TLS"
a1=$(q +short www.tap. A)
capture_end tlsip
n=$(count tlsip CQ www.tap/IN/A)
[ "$a1" = 192.0.2.7 ] && [ "$n" = 1 ] &&
	ok "TLS without a server name (the IP address checked): 1 CLIENT_QUERY" ||
	fail "TLS by IP address: answer '$a1', $n CQ (want 1); $(grep dnstap "$W/tlsip.log" | tail -3)"

# b, c, d: nothing may arrive; petrel answers; the log gives the reason
# tlsfail NAME PORT NAME-LINE BUNDLE CLIENT-CERT REASON
tlsfail() {
	local name=$1 port=$2 why=$6 good=0 i
	PORT=$port
	tlsconf "$name" "$port" "$3" "$4" "$5"
	capture "$name" || exit 1
	resolver_start "$W/$name.conf" "$W/$name.log" "" ||
		fail "$name: petrel did not start"
	# the I/O thread tries at once; wait for its first failure
	for _ in $(seq 100); do
		grep -q "dnstap: TLS to" "$W/$name.log" && break
		sleep 0.1
	done
	for i in $(seq 5); do
		[ "$(q +short www.tap. A)" = 192.0.2.7 ] && good=$((good + 1))
	done
	# a retry (every second) that would get through gets its chance
	sleep 1.5
	capture_end "$name"
	n=$(wc -l < "$W/$name.txt")
	[ "$good" = 5 ] && [ "$n" = 0 ] &&
		ok "$name: no dnstap message arrives, 5 of 5 queries answered" ||
		fail "$name: $n messages arrived, $good of 5 answered"
	grep -q "error: dnstap: TLS to $NET.2@6000.*$why" "$W/$name.log" &&
		ok "$name: logged: $(grep -o "dnstap: TLS.*" "$W/$name.log" | head -1)" ||
		fail "$name: no '$why' in the log: $(grep dnstap "$W/$name.log" | tail -3)"
}
tlsfail badname 61681 "dnstap-tls-server-name: wrong.test" ca yes \
	"certificate verify failed: hostname mismatch"
tlsfail badca 61682 "dnstap-tls-server-name: collector.test" otherca yes \
	"certificate verify failed"
# (TLS 1.3: the refusal of the missing client certificate arrives as an
# alert or, when petrel's first frame overtakes it, as a reset)
tlsfail nocert 61683 "dnstap-tls-server-name: collector.test" ca no \
	"right after the TLS handshake (does it accept the client certificate?)"

# e: plain TCP (dnstap-tls: no) to fstrm_capture on $NET.3 port 6000
PORT=61680
conf tcp "$PORT" 1 "" "dnstap-enable: yes\ndnstap-ip: $NET.3@6000\n\
dnstap-tls: no\ndnstap-log-client-query-messages: yes"
rm -f "$W/tcp.fstrm"
fstrm_capture -t protobuf:dnstap.Dnstap -a "$NET.3" -p 6000 \
	-w "$W/tcp.fstrm" > "$W/tcp.capture.log" 2>&1 &
CAP_PID=$!
it_track "$CAP_PID"
for _ in $(seq 100); do
	ss -tln 2>/dev/null | grep -q "$NET.3:6000 " && break
	sleep 0.1
done
resolver_start "$W/tcp.conf" "$W/tcp.log" "" || fail "tcp: petrel did not start"
for _ in $(seq 100); do
	ss -tn state established 2>/dev/null | grep -q "$NET.3:6000 " && break
	sleep 0.1
done
a1=$(q +short www.tap. A)
capture_end tcp
n=$(count tcp CQ www.tap/IN/A)
[ "$a1" = 192.0.2.7 ] && [ "$n" = 1 ] &&
	ok "dnstap-tls: no: plain TCP to the collector, 1 CLIENT_QUERY" ||
	fail "plain TCP: answer '$a1', $n CQ (want 1)"

# f: the query name (www.tap. in wire form) on the wire
sleep 0.5
kill "$TS_PID" 2>/dev/null
wait "$TS_PID" 2>/dev/null
QN='03:77:77:77:03:74:61:70:00'
plain=$(tshark -n -r "$W/lo.pcap" -Y "ip.dst == $NET.3 && tcp.payload contains $QN" 2>/dev/null | wc -l)
tlsb=$(tshark -n -r "$W/lo.pcap" -T fields -e tcp.len -Y "ip.dst == $NET.2 && tcp.len > 0" 2>/dev/null |
	awk '{ s += $1 } END { print s + 0 }')
leak=$(tshark -n -r "$W/lo.pcap" -Y "ip.addr == $NET.2 && (tcp.payload contains $QN || tcp.payload contains \"dnstap\")" 2>/dev/null | wc -l)
[ "$plain" -ge 1 ] && ok "capture: the name is visible in the plain TCP stream ($plain packets)" ||
	fail "capture: the name not seen in the plain TCP stream (the check cannot work)"
[ "$tlsb" -gt 1000 ] && [ "$leak" = 0 ] &&
	ok "capture: $tlsb bytes to the TLS collector, no query name or content type in clear" ||
	fail "capture: $tlsb bytes to the TLS collector, $leak packets with clear text"

# g: $NET.4 port 6000 listens and never accepts, so the ClientHello waits
# in the backlog unanswered while the I/O thread blocks in the handshake
python3 -c 'import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 6000))
s.listen(8)
time.sleep(120)' "$NET.4" &
it_track $!
for _ in $(seq 100); do
	ss -tln 2>/dev/null | grep -q "$NET.4:6000 " && break
	sleep 0.1
done
PORT=61681
conf stall "$PORT" 1 "" "dnstap-enable: yes\ndnstap-ip: $NET.4@6000\n\
dnstap-tls-server-name: collector.test\n\
dnstap-tls-cert-bundle: \"$W/ca.pem\"\n\
dnstap-log-client-query-messages: yes"
resolver_start "$W/stall.conf" "$W/stall.log" "" || fail "stall: petrel did not start"
good=0
for i in $(seq 10); do
	[ "$(q +short www.tap. A)" = 192.0.2.7 ] && good=$((good + 1))
done
for _ in $(seq 100); do
	grep -q "dnstap: TLS to" "$W/stall.log" && break
	sleep 0.1
done
resolver_stop
[ "$good" = 10 ] && ok "stalled collector: 10 of 10 queries answered during the handshake" ||
	fail "stalled collector: $good of 10 answered"
grep -q "error: dnstap: TLS to $NET.4@6000#collector.test: handshake failed: timed out" "$W/stall.log" &&
	ok "stalled collector: logged: handshake failed: timed out" ||
	fail "stalled collector: no timeout in the log: $(grep dnstap "$W/stall.log" | tail -3)"

finish
