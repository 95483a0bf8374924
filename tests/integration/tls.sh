#!/bin/bash
# tests/integration/tls.sh - DNS over TLS, both ways, against real peers.
#
#   make check-tls        (or: PETREL=./petrel bash tests/integration/tls.sh)
#
# Needs root (tshark capture on lo), unbound, kdig, dig, openssl, tshark.
# Everything listens on 127.0.20.0/24 and the resolver ports 61600-61619;
# a CA and certificates are made with openssl at the start, in the work
# directory, and nothing is left behind (lib.sh's it_cleanup stops every
# process it started, also on failure or ^C).
#
# Upstream (petrel as the TLS client; the real Unbound as the DoT server):
#   127.0.20.1@853 and .5, .6 : Unbound, certificate for dot.test and
#                               those addresses from the test CA
#   127.0.20.4@853            : Unbound, certificate from a CA petrel does
#                               not trust
#   127.0.20.7@853            : nothing listens
# petrel (127.0.20.2) forwards one zone to each:
#   good.zz    127.0.20.1@853#dot.test   answers
#   ip.zz      127.0.20.5@853            answers (IP address verified)
#   badname.zz 127.0.20.6@853#wrong.test SERVFAIL, EDE 23
#   badca.zz   127.0.20.4@853#dot.test   SERVFAIL, EDE 23
#   dead.zz    127.0.20.7@853#dot.test   SERVFAIL, EDE 23
# and "." to 127.0.20.1@853#dot.test, so no query ever goes anywhere in
# clear. tshark records lo throughout; afterwards no packet to any of the
# upstream addresses may be UDP, TCP to another port than 853, TCP
# payload that is not TLS, or carry a query name in clear.
#
# Downstream (petrel as the DoT server on 127.0.20.2@61601, tls-port):
# kdig +tls (verified, pipelined on one connection), openssl s_client
# (ALPN dot, TLS 1.2 and 1.3), no UDP on the TLS port, and stalled
# handshakes (a client that sends nothing, one that sends half a
# ClientHello) that must not delay another client.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

: "${PETREL:=$(pwd)/petrel}"
: "${TSHARK:=tshark}"
NET=127.0.20
PPLAIN=61600
PDOT=61601

for t in "$UNBOUND" kdig dig openssl "$TSHARK" "$PETREL"; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "tls: SKIP: $t not found"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "tls: SKIP: needs root (packet capture on lo)"
	exit 77
fi

# the shared lock of the integration scripts (they bind privileged ports
# on 127.0.x addresses); IT_LOCK=0 skips it for a run by hand
it_suite tls
W=$IT_WORK

# ------------------------------------------------------------ certificates
cert() { # cert NAME CA SAN: key and certificate NAME signed by CA
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$W/$1.key" -out "$W/$1.csr" -subj "/CN=$1" 2>/dev/null &&
	printf 'subjectAltName=%s\n' "$3" > "$W/$1.ext" &&
	openssl x509 -req -in "$W/$1.csr" -CA "$W/$2.pem" -CAkey "$W/$2.key" \
		-CAcreateserial -out "$W/$1.pem" -days 2 \
		-extfile "$W/$1.ext" 2>/dev/null
}
for ca in ca evilca; do
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$W/$ca.key" -out "$W/$ca.pem" -days 2 \
		-subj "/CN=petrel test $ca" 2>/dev/null || { echo "openssl failed"; exit 1; }
done
cert good ca "DNS:dot.test,IP:$NET.1,IP:$NET.5,IP:$NET.6,IP:$NET.2" &&
cert evil evilca "DNS:dot.test,IP:$NET.4" || { echo "openssl failed"; exit 1; }
# Unbound reads its keys as root here; petrel's key stays root-only: it
# is loaded before petrel drops to "nobody"
chmod 644 "$W"/ca.key "$W"/evil.key "$W"/evilca.key
chmod 600 "$W"/good.key
cp "$W/good.key" "$W/ub-good.key"
chmod 644 "$W/ub-good.key"

# ------------------------------------------------------------ Unbound DoT
unbound_dot() { # unbound_dot NAME CERT CA ADDR... : Unbound answering over TLS
	local n=$1 c=$2 ca=$3 a i
	shift 3
	{
		echo "server:"
		for a in "$@"; do echo "  interface: $a@853"; done
		echo "  tls-port: 853"
		echo "  tls-service-key: \"$W/$( [ "$c" = good ] && echo ub-good || echo "$c").key\""
		echo "  tls-service-pem: \"$W/$c.pem\""
		echo "  do-daemonize: no"
		echo "  username: \"\""
		echo "  chroot: \"\""
		echo "  directory: \"$W\""
		echo "  pidfile: \"$W/$n.pid\""
		echo "  use-syslog: no"
		echo "  verbosity: 1"
		echo "  do-ip6: no"
		echo "  access-control: 127.0.0.0/8 allow"
		echo "  module-config: \"iterator\""
		for z in good ip badname badca dead; do
			echo "  local-zone: \"$z.zz.\" static"
			echo "  local-data: \"www.$z.zz. 300 IN A 192.0.2.1\""
		done
		echo "  local-zone: \"zz.\" static"
		echo "  local-data: \"www.zz. 300 IN A 192.0.2.2\""
		echo "remote-control:"
		echo "  control-enable: no"
	} > "$W/$n.conf"
	"$UNBOUND" -d -c "$W/$n.conf" > "$W/$n.log" 2>&1 &
	it_track $!
	for i in $(seq 50); do
		kdig +tls +tls-ca="$W/$ca.pem" +tls-hostname=dot.test +time=1 \
			+retry=0 @"$1" -p 853 www.zz A 2>/dev/null |
			grep -q "192.0.2.2" && return 0
		sleep 0.1
	done
	echo "unbound $n did not answer over TLS; its log:"; cat "$W/$n.log"
	return 1
}
unbound_dot ub-good good ca $NET.1 $NET.5 $NET.6 || exit 1
unbound_dot ub-evil evil evilca $NET.4 || exit 1

# ------------------------------------------------------------ capture
"$TSHARK" -i lo -n -q -w "$W/lo.pcap" -f "net $NET.0/24" > "$W/tshark.out" 2>&1 &
TSPID=$!
it_track $TSPID
for i in $(seq 100); do
	grep -q "Capturing on" "$W/tshark.out" && break
	sleep 0.1
done
grep -q "Capturing on" "$W/tshark.out" || { echo "tshark did not start:"; cat "$W/tshark.out"; exit 1; }

# ------------------------------------------------------------ petrel
cat > "$W/petrel.conf" <<EOF
server:
  interface: $NET.2@$PPLAIN
  interface: $NET.2@$PDOT
  tls-port: $PDOT
  tls-service-key: "$W/good.key"
  tls-service-pem: "$W/good.pem"
  tls-cert-bundle: "$W/ca.pem"
  num-threads: 1
  incoming-num-tcp: 8
  tcp-idle-timeout: 20000
  do-ip6: no
  do-daemonize: no
  username: "nobody"
  chroot: ""
  pidfile: ""
  use-syslog: no
  logfile: ""
  verbosity: 1
  do-not-query-localhost: no
  access-control: 127.0.0.0/8 allow
  local-zone: "local.zz." static
  local-data: "www.local.zz. 300 IN A 192.0.2.9"
forward-zone:
  name: "."
  forward-addr: $NET.1@853#dot.test
  forward-tls-upstream: yes
forward-zone:
  name: "good.zz."
  forward-addr: $NET.1#dot.test
  forward-tls-upstream: yes
forward-zone:
  name: "ip.zz."
  forward-addr: $NET.5@853
  forward-tls-upstream: yes
forward-zone:
  name: "badname.zz."
  forward-addr: $NET.6@853#wrong.test
  forward-tls-upstream: yes
forward-zone:
  name: "badca.zz."
  forward-addr: $NET.4@853#dot.test
  forward-tls-upstream: yes
forward-zone:
  name: "dead.zz."
  forward-addr: $NET.7@853#dot.test
  forward-tls-upstream: yes
EOF
"$PETREL" -d -c "$W/petrel.conf" > "$W/petrel.log" 2>&1 &
PPID_=$!
it_track $PPID_
for i in $(seq 50); do
	dig +time=1 +tries=1 @$NET.2 -p $PPLAIN www.local.zz A 2>/dev/null | grep -q 192.0.2.9 && break
	sleep 0.1
done

q() { dig +time=5 +tries=1 @$NET.2 -p $PPLAIN "$@" 2>&1; }

# ------------------------------------------------------------ upstream TLS
out=$(q www.good.zz A)
echo "$out" | grep -q "^www.good.zz.*192.0.2.1" && ok "forward over TLS, verified name: answer" ||
	fail "forward over TLS, verified name: $out"
out=$(q www.ip.zz A)
echo "$out" | grep -q "^www.ip.zz.*192.0.2.1" && ok "forward over TLS, verified IP address (no name): answer" ||
	fail "forward over TLS, verified IP: $out"
for z in badname badca dead; do
	out=$(q www.$z.zz A)
	if echo "$out" | grep -q "status: SERVFAIL" && echo "$out" | grep -q "EDE: 23"; then
		ok "$z: SERVFAIL with EDE 23"
	else
		fail "$z: expected SERVFAIL with EDE 23: $out"
	fi
	# asked again: the server is not used (no new connection), same answer
	out=$(q www2.$z.zz A)
	echo "$out" | grep -q "status: SERVFAIL" && ok "$z: again SERVFAIL" ||
		fail "$z again: $out"
	# over TCP from the client too (the iterator may ask with the TCP flag)
	out=$(q +tcp www3.$z.zz A)
	echo "$out" | grep -q "status: SERVFAIL" && ok "$z: TCP client, SERVFAIL" ||
		fail "$z TCP client: $out"
done
grep -q "TLS upstream $NET.6@853#wrong.test not used for 60 s: certificate verify failed: hostname mismatch" "$W/petrel.log" &&
	ok "wrong name logged as a hostname mismatch" || fail "no hostname mismatch in the log"
grep -q "TLS upstream $NET.4@853#dot.test not used for 60 s: certificate verify failed" "$W/petrel.log" &&
	ok "untrusted CA logged as a certificate failure" || fail "no certificate failure in the log"
# pipelining: 20 distinct queries at once go on the one connection
# (each an NXDOMAIN from the upstream's static zone)
DIGS=()
for i in $(seq 20); do
	dig +time=5 +tries=1 @$NET.2 -p $PPLAIN p$i.good.zz A > "$W/par.$i" 2>&1 &
	DIGS+=($!)
done
wait "${DIGS[@]}"
n=$(cat "$W"/par.* | grep -c "status: NXDOMAIN")
[ "$n" = 20 ] && ok "20 concurrent queries forwarded over TLS: 20 answers" ||
	fail "20 concurrent queries: $n answers"

# ------------------------------------------------------------ downstream DoT
KD="kdig +tls +tls-ca=$W/ca.pem +tls-hostname=dot.test +time=5 +retry=0 @$NET.2 -p $PDOT"
out=$($KD www.local.zz A 2>&1)
echo "$out" | grep -q "192.0.2.9" && ok "kdig +tls (certificate verified): local answer" ||
	fail "kdig +tls: $out"
out=$($KD www.good.zz A 2>&1)
echo "$out" | grep -q "192.0.2.1" && ok "kdig +tls: answer forwarded over TLS" || fail "kdig +tls forwarded: $out"
out=$($KD +keepopen www.local.zz A www.good.zz A www.ip.zz A 2>&1)
[ "$(echo "$out" | grep -c "IN[[:space:]]*A[[:space:]]*192.0.2")" = 3 ] &&
	ok "kdig +tls +keepopen: three queries on one connection" || fail "kdig keepopen: $out"
# RFC 7830/8467: a padded query gets an answer padded to 468 bytes; an
# unpadded one is not padded
out=$($KD +padding www.local.zz A 2>&1)
echo "$out" | grep -q "Received 468 B" && ok "kdig +tls +padding: answer padded to 468 bytes" ||
	fail "padded answer: $out"
out=$($KD +nopadding www.local.zz A 2>&1)
echo "$out" | grep -q "Received 468 B" && fail "unpadded query got a padded answer: $out" ||
	ok "kdig +tls +nopadding: answer not padded"
out=$(echo | timeout 10 openssl s_client -connect $NET.2:$PDOT -alpn dot \
	-CAfile "$W/ca.pem" -verify_hostname dot.test 2>&1)
echo "$out" | grep -q "ALPN protocol: dot" && echo "$out" | grep -q "Verify return code: 0 (ok)" &&
	ok "openssl s_client: ALPN dot, verified" || fail "s_client: $out"
for v in tls1_2 tls1_3; do
	out=$(echo | timeout 10 openssl s_client -connect $NET.2:$PDOT -$v \
		-CAfile "$W/ca.pem" 2>&1)
	echo "$out" | grep -q "Verify return code: 0 (ok)" &&
		! echo "$out" | grep -q "Cipher is (NONE)" && ok "openssl s_client -$v" ||
		fail "s_client -$v: $out"
done
out=$(echo | timeout 10 openssl s_client -connect $NET.2:$PDOT -alpn h2 \
	-CAfile "$W/ca.pem" 2>&1)
echo "$out" | grep -q "alert no application protocol" && ok "ALPN without dot refused" ||
	fail "ALPN h2 only: $out"
out=$(dig +time=2 +tries=1 @$NET.2 -p $PDOT www.local.zz A 2>&1)
echo "$out" | grep -q "192.0.2.9" && fail "plain UDP answered on the TLS port" ||
	ok "no plain UDP on the TLS port"
out=$(dig +tcp +time=2 +tries=1 @$NET.2 -p $PDOT www.local.zz A 2>&1)
echo "$out" | grep -q "192.0.2.9" && fail "plain TCP answered on the TLS port" ||
	ok "no plain TCP on the TLS port"

# stalled handshakes: one client sends nothing, one half a ClientHello
# (a record header announcing 512 bytes, then 6 of them); a third client
# must still be answered while both hold their connections open
exec 5<>/dev/tcp/$NET.2/$PDOT
exec 6<>/dev/tcp/$NET.2/$PDOT
printf '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03' >&6
out=$($KD www.local.zz A 2>&1)
echo "$out" | grep -q "192.0.2.9" && ok "answered while two handshakes stall" ||
	fail "stalled handshakes delayed another client: $out"
out=$(q www.local.zz A)
echo "$out" | grep -q "192.0.2.9" && ok "UDP answered while two handshakes stall" ||
	fail "UDP while stalled: $out"
exec 5>&- 6>&-

kill -0 $PPID_ 2>/dev/null && ok "petrel still running" || fail "petrel died"

# ------------------------------------------------------------ the capture
sleep 0.5
kill -INT $TSPID 2>/dev/null
for i in $(seq 50); do kill -0 $TSPID 2>/dev/null || break; sleep 0.1; done
# one pass over the capture: per packet the destination, the protocol
# stack, the TCP port and payload length, the TLS handshake type, whether
# it is a retransmission (not dissected as TLS again), the SYN flag
"$TSHARK" -n -r "$W/lo.pcap" -T fields -E separator=/t -e ip.dst \
	-e frame.protocols -e tcp.dstport -e tcp.len -e tls.handshake.type \
	-e tcp.analysis.retransmission -e tcp.flags.syn > "$W/pkts.txt" 2>/dev/null
# a query name in clear: the test names all end in the label "zz", in
# wire format the bytes 02 7a 7a 00 (the two letters alone, "zz", turn up
# in ciphertext by chance about once in 65536 byte pairs: in a capture of
# a few hundred TLS records, now and then)
"$TSHARK" -n -r "$W/lo.pcap" -Y 'frame contains 02:7a:7a:00' -T fields \
	-e ip.dst > "$W/zz.txt" 2>/dev/null
# count AWK-CONDITION: packets whose fields ($1 dst, $2 protocols, $3 tcp
# port, $4 tcp payload, $5 handshake type, $6 retransmission, $7 syn) match
count() { awk -F'\t' "$1 { n++ } END { print n + 0 }" "$W/pkts.txt"; }
n=$(count "\$1 == \"$NET.1\" && \$5 ~ /(^|,)1(,|\$)/")
[ "$n" -ge 1 ] && ok "capture holds the TLS ClientHellos to $NET.1 ($n)" ||
	fail "capture has no ClientHello to $NET.1 (capture broken?)"
for a in 1 4 5 6 7; do
	ip=$NET.$a
	n=$(count "\$1 == \"$ip\" && \$2 ~ /:udp/")
	[ "$n" = 0 ] && ok "$ip: no UDP" || fail "$ip: $n UDP packets"
	n=$(count "\$1 == \"$ip\" && \$2 ~ /:tcp/ && \$3 != 853")
	[ "$n" = 0 ] && ok "$ip: TCP only to port 853" || fail "$ip: $n TCP packets to other ports"
	n=$(count "\$1 == \"$ip\" && \$4 > 0 && \$2 !~ /:tls/ && \$6 == \"\"")
	[ "$n" = 0 ] && ok "$ip: every TCP payload is TLS" || fail "$ip: $n TCP payloads that are not TLS"
	n=$(grep -c "^$ip\$" "$W/zz.txt")
	[ "$n" = 0 ] && ok "$ip: no query name in clear" || fail "$ip: $n packets with a query name in clear"
done
n=$(count "\$1 == \"$NET.7\" && \$7 == 1")
[ "$n" -ge 1 ] && ok "$NET.7: connection attempted (and refused)" || fail "$NET.7: no SYN seen"

# stop what was started here (the exit trap then has nothing left to
# look for, which is quick)
kill -TERM "${IT_PIDS[@]}" 2>/dev/null
wait "${IT_PIDS[@]}" 2>/dev/null

finish
