#!/usr/bin/env bash
# tests/integration/ifaction.sh - interface-action: the action of the
# listening point a query came in on, for clients that no access-control
# netblock contains (`make check-ifaction`).
#
# usage: tests/integration/ifaction.sh [-k]
#   -k  keep the work directory (config, log)
# environment: PETREL=path, PETREL_CHECKCONF=path
#
# Every client on this machine is a loopback address, which the localhost
# default of access-control always allows; so the clients here come
# through PROXY v2 headers (tests/integration/proxy_client.py, sent from
# 127.0.252.10, which the default allows), naming 192.0.2.7 (no
# access-control line contains it) or 198.51.100.9 (access-control deny).
# petrel listens on port 62520 (a proxy-protocol-port) of 127.0.252.1
# (interface-action allow), 127.0.252.2 (no interface-action: refused),
# 127.0.252.3 (interface-action deny) and 127.0.252.4 (allow_snoop) and
# answers a local zone (no upstream).
# 1. 192.0.2.7 is answered on .1 over UDP and TCP, REFUSED on .2, not
#    answered on .3; on .4 a query without RD is answered (allow_snoop),
#    on .1 it is REFUSED (allow).
# 2. 198.51.100.9 (access-control deny) gets no answer on .1: an
#    access-control line wins over interface-action.
# 3. petrel-checkconf -o interface-action prints the lines, and
#    petrel-checkconf refuses a bad action naming file:line.
# No root needed (ports above 1024). About 10 s. Exit 0 when every check
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

PORT=62520
CLIENT="python3 $here/proxy_client.py"
export PROXY_SRC=127.0.252.10

for tool in dig python3 timeout; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "ifaction: SKIP: $tool not found (contrib/setup-debian.sh)"
		exit 77
	fi
done
it_suite ifaction
# expect WHAT WANT GOT
expect() {
	if [ "$3" = "$2" ]; then ok "$1: $3"
	else fail "$1: wanted '$2', got '$3'"
	fi
}

W=$IT_WORK
CONF="$W/petrel.conf"
# loopback root hints (nothing listens there: no query leaves by them)
printf '. 3600 IN NS a.root.test.\na.root.test. 3600 IN A 127.0.252.99\n' \
	> "$W/root.hints"
cat > "$CONF" <<CONF
server:
  interface: 127.0.252.1
  interface: 127.0.252.2
  interface: 127.0.252.3
  interface: 127.0.252.4
  port: $PORT
  proxy-protocol-port: $PORT
  interface-action: 127.0.252.1 allow
  interface-action: 127.0.252.3@$PORT deny
  interface-action: 127.0.252.4 allow_snoop
  access-control: 198.51.100.0/24 deny
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
  root-hints: "$W/root.hints"
  local-zone: if.zz. static
  local-data: "a.if.zz. A 192.0.2.53"
CONF

LOG="$W/petrel.log"
"$PETREL" -d -c "$CONF" >>"$LOG" 2>&1 9>&- &
PID=$!
it_track "$PID"
it_track_pidfile "$W/petrel.pid"
up=0
for i in $(seq 100); do
	kill -0 "$PID" 2>/dev/null || break
	if dig +time=1 +tries=1 -b 127.0.252.10 @127.0.252.1 -p $PORT \
		a.if.zz A >/dev/null 2>&1; then
		up=1
		break
	fi
	# the proxy-protocol-port wants a header: a query from the client
	if [ "$($CLIENT udp 127.0.252.1 $PORT local a.if.zz)" = "NOERROR 1" ]
	then
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

Q=a.if.zz
C=v4:192.0.2.7:1234
# 1. the listening point's action
expect "udp on .1 (allow)" "NOERROR 1" "$($CLIENT udp 127.0.252.1 $PORT $C $Q)"
expect "tcp on .1 (allow)" "NOERROR 1" "$($CLIENT tcp 127.0.252.1 $PORT $C $Q)"
expect "udp on .2 (none: refuse)" "REFUSED 0" "$($CLIENT udp 127.0.252.2 $PORT $C $Q)"
expect "tcp on .2 (none: refuse)" "REFUSED 0" "$($CLIENT tcp 127.0.252.2 $PORT $C $Q)"
expect "udp on .3 (deny)" "TIMEOUT" "$($CLIENT udp 127.0.252.3 $PORT $C $Q)"
expect "udp on .4 (allow_snoop)" "NOERROR 1" "$($CLIENT udp 127.0.252.4 $PORT $C $Q)"
# without RD: only allow_snoop answers it
# without RD (a name no local zone has, so the action decides): allow
# refuses it, allow_snoop looks in the cache
N=nothing.example
expect "udp on .1 (allow), no RD" "REFUSED 0" "$(PROXY_NORD=1 $CLIENT udp 127.0.252.1 $PORT $C $N)"
got=$(PROXY_NORD=1 $CLIENT udp 127.0.252.4 $PORT $C $N)
case "$got" in
"REFUSED"*|TIMEOUT|"") fail "udp on .4 (allow_snoop), no RD: got '$got'" ;;
*) ok "udp on .4 (allow_snoop), no RD: $got (not REFUSED)" ;;
esac
# the proxy itself (127.0.252.10, the localhost default) is answered
expect "udp LOCAL on .2 (the proxy: localhost)" "NOERROR 1" "$($CLIENT udp 127.0.252.2 $PORT local $Q)"

# 2. access-control wins
expect "udp on .1 from 198.51.100.9 (access-control deny)" "TIMEOUT" "$($CLIENT udp 127.0.252.1 $PORT v4:198.51.100.9:1234 $Q)"

kill -0 "$PID" 2>/dev/null && ok "petrel still running" || fail "petrel died"

# 3. checkconf and a bad line
CHECKCONF="${PETREL_CHECKCONF:-$top/smallapp/petrel-checkconf}"
out=$("$CHECKCONF" -o interface-action "$CONF" 2>&1 | tr '\n' ';')
expect "petrel-checkconf -o interface-action" \
	"127.0.252.1 allow;127.0.252.3@$PORT deny;127.0.252.4 allow_snoop;" "$out"
sed 's/127.0.252.4 allow_snoop/127.0.252.4 maybe/' "$CONF" > "$W/bad.conf"
out=$("$CHECKCONF" "$W/bad.conf" 2>&1)
case "$out" in
*"bad.conf:"*"interface-action: unknown action 'maybe'"*)
	ok "a bad action is refused with file:line" ;;
*) fail "bad action: $out" ;;
esac
if grep -qiE "assert|sanitizer|segmentation" "$LOG"; then
	fail "the log shows a crash:"
	cat "$LOG"
fi
finish
