#!/usr/bin/env bash
# tests/integration/proxy.sh - proxy-protocol-port with a client that
# speaks PROXY v2 like a load balancer (`make check-proxy`).
#
# usage: tests/integration/proxy.sh [-k]
#   -k  keep the work directory (config, log)
# environment: PETREL=path
#
# petrel on 127.0.180.1 answers a local zone (no upstream): port 61990 is
# a proxy-protocol-port for UDP and TCP, 61992 is a tls-port that is a
# proxy-protocol-port too (the header comes before the TLS handshake),
# 61991 is a plain port. Access control allows 192.0.2.0/24 and
# 2001:db8::/32 and the proxy 127.0.180.10, refuses 127.0.0.0/8 and
# 198.51.100.0/24 and denies 127.0.180.12, so the rcode says which address
# it judged. The client (tests/integration/proxy_client.py) sends from
# 127.0.180.10 (PROXY_SRC: another proxy address).
#
# 1. UDP, TCP (the header in three writes) and TLS: a header naming
#    192.0.2.7 or 2001:db8::5 is answered, one naming 198.51.100.9 is
#    refused, and the answers reach the client's socket (the proxy); a
#    LOCAL header is judged by the socket's own peer.
#    The proxy itself must pass access control too (as Unbound): through
#    a refused proxy (127.0.180.11) a header naming an allowed client is
#    REFUSED, through a denied one (127.0.180.12) it is not answered.
#    One size rule for both transports: a header with 900 bytes of TLVs
#    is answered, one with 2 000 is refused (no answer, connection
#    closed).
# 2. Malformed and refused headers (none, the v1 text, version 3, AF_UNIX,
#    a length shorter than the addresses, cut short): no answer over UDP,
#    the connection closed over TCP and TLS; the worker answers the next
#    good query.
# 3. The plain port judges the socket peer (dig from 127.0.180.10 is
#    refused), and a PROXY header sent to it gets no answer (UDP) or a
#    closed connection (TCP).
# 4. sock-queue-timeout 1: with petrel stopped (SIGSTOP), five queries
#    wait in its socket for 3 s; once it runs again they are dropped
#    (total.num.queries_timed_out=5) and the next query is answered.
# No root needed (ports above 1024). About 15 s. Exit 0 when every check
# passed, 1 otherwise, 77 when a tool is missing.

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

RES_IP=127.0.180.1
PPORT=61990
PLAIN=61991
TPORT=61992
CLIENT="python3 $here/proxy_client.py"

for tool in dig python3 openssl timeout; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "proxy: SKIP: $tool not found (contrib/setup-debian.sh)"
		exit 77
	fi
done
it_suite proxy
# expect WHAT WANT GOT
expect() {
	if [ "$3" = "$2" ]; then ok "$1: $3"
	else fail "$1: wanted '$2', got '$3'"
	fi
}

W=$IT_WORK
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$W/tls.key" -out "$W/tls.pem" -days 2 \
	-subj "/CN=proxy.test" 2>/dev/null || { fail "openssl"; finish; }
chmod 644 "$W/tls.key"

CONF="$W/petrel.conf"
cat > "$CONF" <<CONF
server:
  interface: $RES_IP@$PPORT
  interface: $RES_IP@$PLAIN
  interface: $RES_IP@$TPORT
  port: $PLAIN
  tls-port: $TPORT
  tls-service-key: "$W/tls.key"
  tls-service-pem: "$W/tls.pem"
  proxy-protocol-port: $PPORT
  proxy-protocol-port: $TPORT
  do-ip6: no
  num-threads: 1
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "$W"
  pidfile: "$W/petrel.pid"
  logfile: ""
  use-syslog: no
  verbosity: 1
  access-control: 127.0.0.0/8 refuse
  access-control: 198.51.100.0/24 refuse
  access-control: 127.0.180.10/32 allow
  access-control: 127.0.180.12/32 deny
  access-control: 192.0.2.0/24 allow
  access-control: 2001:db8::/32 allow
  local-zone: proxy.test. static
  local-data: "a.proxy.test. A 192.0.2.53"
  sock-queue-timeout: 1
remote-control:
  control-enable: yes
  control-interface: "$W/control.sock"
  control-use-cert: no
CONF

LOG="$W/petrel.log"
"$PETREL" -d -c "$CONF" >>"$LOG" 2>&1 9>&- &
PID=$!
it_track "$PID"
it_track_pidfile "$W/petrel.pid"
up=0
for i in $(seq 100); do
	kill -0 "$PID" 2>/dev/null || break
	if dig +time=1 +tries=1 -b 127.0.180.10 @$RES_IP -p $PLAIN \
		a.proxy.test A >/dev/null 2>&1; then
		up=1
		break
	fi
	sleep 0.1
done
if [ "$up" != 1 ]; then
	fail "petrel did not start; log:"
	tail -20 "$LOG"
	finish
fi

Q=a.proxy.test

# 1. the proxied address is the client
expect "udp from 192.0.2.7" "NOERROR 1" "$($CLIENT udp $RES_IP $PPORT v4:192.0.2.7:1234 $Q)"
expect "udp from 198.51.100.9" "REFUSED 0" "$($CLIENT udp $RES_IP $PPORT v4:198.51.100.9:1234 $Q)"
expect "udp from 2001:db8::5" "NOERROR 1" "$($CLIENT udp $RES_IP $PPORT v6:2001:db8::5:4444 $Q)"
expect "udp LOCAL (the proxy itself, allowed)" "NOERROR 1" "$($CLIENT udp $RES_IP $PPORT local $Q)"
expect "udp LOCAL from a refused proxy" "REFUSED 0" "$(PROXY_SRC=127.0.180.11 $CLIENT udp $RES_IP $PPORT local $Q)"
expect "tcp from 192.0.2.7, header in pieces" "NOERROR 1" "$($CLIENT tcp $RES_IP $PPORT v4:192.0.2.7:1234 $Q split)"
expect "tcp from 198.51.100.9" "REFUSED 0" "$($CLIENT tcp $RES_IP $PPORT v4:198.51.100.9:1234 $Q)"
expect "tcp from 2001:db8::5" "NOERROR 1" "$($CLIENT tcp $RES_IP $PPORT v6:2001:db8::5:4444 $Q)"
expect "tcp LOCAL" "NOERROR 1" "$($CLIENT tcp $RES_IP $PPORT local $Q)"
expect "tcp LOCAL from a refused proxy" "REFUSED 0" "$(PROXY_SRC=127.0.180.11 $CLIENT tcp $RES_IP $PPORT local $Q)"
expect "tls from 192.0.2.7, header in pieces" "NOERROR 1" "$($CLIENT tls $RES_IP $TPORT v4:192.0.2.7:1234 $Q split)"
expect "tls from 198.51.100.9" "REFUSED 0" "$($CLIENT tls $RES_IP $TPORT v4:198.51.100.9:1234 $Q)"
# the proxy's own address: refused or denied whatever client it names
for m in udp tcp; do
	expect "$m via a refused proxy, naming 192.0.2.7" "REFUSED 0" \
		"$(PROXY_SRC=127.0.180.11 $CLIENT $m $RES_IP $PPORT v4:192.0.2.7:1234 $Q)"
	expect "$m via a denied proxy, naming 192.0.2.7" "TIMEOUT" \
		"$(PROXY_SRC=127.0.180.12 $CLIENT $m $RES_IP $PPORT v4:192.0.2.7:1234 $Q)"
done
expect "tls via a refused proxy, naming 192.0.2.7" "REFUSED 0" \
	"$(PROXY_SRC=127.0.180.11 $CLIENT tls $RES_IP $TPORT v4:192.0.2.7:1234 $Q)"
# TLVs: one size rule for UDP and TCP
expect "udp header with 900 bytes of TLVs" "NOERROR 1" "$($CLIENT udp $RES_IP $PPORT tlv:900 $Q)"
expect "tcp header with 900 bytes of TLVs" "NOERROR 1" "$($CLIENT tcp $RES_IP $PPORT tlv:900 $Q)"
expect "udp header with 2000 bytes of TLVs" "TIMEOUT" "$($CLIENT udp $RES_IP $PPORT tlv:2000 $Q)"
expect "tcp header with 2000 bytes of TLVs" "CLOSED" "$($CLIENT tcp $RES_IP $PPORT tlv:2000 $Q)"

# 2. bad headers: dropped / closed; the UDP ones run side by side (each
# waits the client's 2 s for nothing)
UPIDS=()
for h in none v1 badver unix short cut; do
	$CLIENT udp $RES_IP $PPORT $h $Q > "$W/udp-$h.out" &
	UPIDS+=($!)
done
for h in none v1 badver unix short cut; do
	expect "tcp header '$h'" "CLOSED" "$($CLIENT tcp $RES_IP $PPORT $h $Q)"
done
for h in none badver cut; do
	expect "tls header '$h'" "CLOSED" "$($CLIENT tls $RES_IP $TPORT $h $Q)"
done
wait "${UPIDS[@]}"
for h in none v1 badver unix short cut; do
	expect "udp header '$h'" "TIMEOUT" "$(cat "$W/udp-$h.out")"
done
kill -0 "$PID" 2>/dev/null && ok "petrel still running" || fail "petrel died"
expect "udp after the bad ones" "NOERROR 1" "$($CLIENT udp $RES_IP $PPORT v4:192.0.2.7:1234 $Q)"
expect "tcp after the bad ones" "NOERROR 1" "$($CLIENT tcp $RES_IP $PPORT v4:192.0.2.7:1234 $Q)"
expect "tls after the bad ones" "NOERROR 1" "$($CLIENT tls $RES_IP $TPORT v4:192.0.2.7:1234 $Q)"

# 3. the plain port: the socket peer is the client; a header is refused
rc=$(dig +time=2 +tries=1 -b 127.0.180.11 @$RES_IP -p $PLAIN $Q A |
	sed -n 's/.*status: \([A-Z]*\),.*/\1/p')
expect "plain port, dig from 127.0.180.11" "REFUSED" "$rc"
rc=$(dig +time=2 +tries=1 -b 127.0.180.10 @$RES_IP -p $PLAIN $Q A |
	sed -n 's/.*status: \([A-Z]*\),.*/\1/p')
expect "plain port, dig from 127.0.180.10" "NOERROR" "$rc"
expect "plain port, udp with a header" "TIMEOUT" "$($CLIENT udp $RES_IP $PLAIN v4:192.0.2.7:1234 $Q)"
expect "plain port, tcp with a header" "CLOSED" "$($CLIENT tcp $RES_IP $PLAIN v4:192.0.2.7:1234 $Q)"

# 4. sock-queue-timeout: queries that waited 3 s in the socket are dropped
stat() { "$PETREL_CONTROL" -c "$CONF" stats_noreset 2>/dev/null | sed -n "s/^$1=//p"; }
expect "no query timed out yet" "0" "$(stat total.num.queries_timed_out)"
kill -STOP "$PID"
UPIDS=()
for i in 1 2 3 4 5; do
	$CLIENT udp $RES_IP $PPORT v4:192.0.2.7:1234 $Q > /dev/null &
	UPIDS+=($!)
done
sleep 3
kill -CONT "$PID"
wait "${UPIDS[@]}"
expect "fresh query after the stop" "NOERROR 1" "$($CLIENT udp $RES_IP $PPORT v4:192.0.2.7:1234 $Q)"
expect "queries dropped by sock-queue-timeout" "5" "$(stat total.num.queries_timed_out)"
kill -0 "$PID" 2>/dev/null && ok "petrel still running at the end" || fail "petrel died"
if grep -qiE "assert|sanitizer|segmentation" "$LOG"; then
	fail "the log shows a crash:"
	cat "$LOG"
fi
finish
