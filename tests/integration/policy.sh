#!/bin/bash
# tests/integration/policy.sh - views and response policy zones end to end
# (issue 22): NSD on 127.0.100.10 port 53 serves example. (a stub zone of
# petrel); petrel listens on 127.0.100.1 and 127.0.100.2 port 53 with
#   interface-view: 127.0.100.2 inside         (split horizon by interface)
#   access-control-view: 127.0.100.50 guest    (split horizon by client)
#   an rpz: zone file with QNAME, wildcard and CLIENT-IP triggers
# and is asked with dig, kdig and drill: the three answers of www.example.
# by the address asked and the client address, every RPZ action with its
# EDE, rpz_disable / rpz_enable and the view_* commands through
# petrel-control, a reload that picks up a changed RPZ zone file, in the
# pthreads and fork thread models.
#
# Needs root (port 53 on 127.0.100.x), NSD, dig, kdig, drill. Takes
# /tmp/petrel-integration.lock; stops everything it started; ~20 s.
# Usage: PETREL=./petrel bash tests/integration/policy.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
: "${PETREL:=$HERE/../../petrel}"
: "${PETREL_CONTROL:=$(dirname "$PETREL")/petrel-control}"
export PETREL PETREL_CONTROL RESOLVER=petrel

for t in "$NSD" dig kdig drill; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "policy: SKIP: $t not found"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "policy: SKIP: needs root for port 53"
	exit 77
fi
exec 9>/tmp/petrel-integration.lock
if ! flock -w 300 9; then
	echo "policy: another run holds /tmp/petrel-integration.lock"
	exit 1
fi

it_init petrel-policy
PASSED=0
FAILED=0
ok()   { echo "ok   $*"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $*"; FAILED=$((FAILED + 1)); }
A1=127.0.100.1
A2=127.0.100.2
GUEST=127.0.100.50
AUTH=127.0.100.10

cat > "$IT_WORK/example.zone" <<'EOF'
$ORIGIN example.
$TTL 300
@	SOA	ns.example. h.example. 1 3600 600 86400 60
	NS	ns.example.
ns	A	127.0.100.10
www	A	192.0.2.80
nx	A	192.0.2.81
ok	A	192.0.2.82
x.ads	A	192.0.2.83
later	A	192.0.2.84
EOF
cat > "$IT_WORK/rpz.zone" <<'EOF'
$TTL 60
@	SOA	localhost. root.localhost. 1 3600 600 86400 60
	NS	localhost.
nx.example	CNAME	.
*.ads.example	CNAME	*.
drop.example	CNAME	rpz-drop.
tcp.example	CNAME	rpz-tcp-only.
data.example	A	192.0.2.10
walled.example	CNAME	garden.example.net.
32.51.100.0.127.rpz-client-ip	CNAME	.
EOF
nsd_start auth "$AUTH" "example.=$IT_WORK/example.zone" || exit 1

# conf MODEL: petrel's config
conf() {
	cat <<EOF
server:
	interface: $A1
	interface: $A2
	port: 53
	do-ip6: no
	num-threads: 2
	thread-model: $1
	do-not-query-localhost: no
	do-daemonize: no
	username: ""
	chroot: ""
	directory: "$IT_WORK"
	pidfile: "$IT_WORK/resolver.pid"
	logfile: ""
	use-syslog: no
	verbosity: 1
	access-control: 127.0.0.0/8 allow
	access-control-view: $GUEST/32 guest
	interface-view: $A2 inside
view:
	name: "inside"
	local-zone: "example." typetransparent
	local-data: "www.example. 300 A 10.0.0.80"
view:
	name: "guest"
	view-first: yes
	local-data: "www.example. 300 A 10.9.9.9"
rpz:
	name: rpz.local.
	zonefile: "$IT_WORK/rpz.zone"
	rpz-log: yes
remote-control:
	control-enable: yes
	control-interface: "$IT_WORK/control.sock"
	control-use-cert: no
stub-zone:
	name: "example."
	stub-addr: $AUTH
EOF
}

# q ARGS...: the short answer of dig
q() { dig +time=2 +tries=1 +short "$@" 2>/dev/null; }
# st ARGS...: the status word of dig
st() { dig +time=2 +tries=1 "$@" 2>/dev/null | sed -n 's/.*status: \([A-Z]*\).*/\1/p'; }
# check DESC WANT GOT
check() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: want '$2', got '$3'"; fi
}
ctl() { "$PETREL_CONTROL" -c "$IT_WORK/petrel.conf" "$@" 2>&1; }

run_model() {
	local m=$1 out
	conf "$m" > "$IT_WORK/petrel.conf"
	: > "$IT_WORK/petrel.log"
	# resolver_start waits on 127.0.0.1; petrel is on $A1: wait here
	"$PETREL" -d -c "$IT_WORK/petrel.conf" >>"$IT_WORK/petrel.log" 2>&1 &
	RES_PID=$!
	it_track "$RES_PID"
	for i in $(seq 100); do
		q @$A1 localhost. A >/dev/null && [ -n "$(q @$A1 localhost. A)" ] && break
		kill -0 "$RES_PID" 2>/dev/null || break
		sleep 0.1
	done
	if ! kill -0 "$RES_PID" 2>/dev/null; then
		fail "$m: petrel did not start"; cat "$IT_WORK/petrel.log"; return
	fi
	# split horizon
	check "$m: www.example. asked at $A1: the real data" 192.0.2.80 "$(q @$A1 www.example.)"
	check "$m: www.example. asked at $A2: view inside (interface-view)" 10.0.0.80 "$(q @$A2 www.example.)"
	check "$m: www.example. from $GUEST: view guest (access-control-view)" 10.9.9.9 "$(q -b $GUEST @$A1 www.example.)"
	check "$m: ok.example. at $A2: typetransparent view zone resolves the rest" 192.0.2.82 "$(q @$A2 ok.example.)"
	check "$m: kdig at $A2" 10.0.0.80 "$(kdig +short +time=2 +retry=0 @$A2 www.example. A 2>/dev/null)"
	check "$m: drill from $GUEST" 10.9.9.9 "$(drill -Q -I $GUEST @$A1 www.example. A 2>/dev/null | head -1)"
	# RPZ actions
	out=$(dig +time=2 +tries=1 @$A1 nx.example. 2>/dev/null)
	check "$m: rpz nxdomain" NXDOMAIN "$(echo "$out" | sed -n 's/.*status: \([A-Z]*\).*/\1/p')"
	if echo "$out" | grep -q 'EDE: 15 (Blocked)'; then ok "$m: rpz nxdomain carries EDE 15"; else fail "$m: no EDE 15: $out"; fi
	check "$m: rpz wildcard nodata" "NOERROR:" "$(st @$A1 a.b.ads.example.):$(q @$A1 a.b.ads.example.)"
	check "$m: rpz local data" 192.0.2.10 "$(q @$A1 data.example.)"
	out=$(dig +time=2 +tries=1 @$A1 data.example. 2>/dev/null)
	if echo "$out" | grep -q 'EDE: 17 (Filtered)'; then ok "$m: local data carries EDE 17"; else fail "$m: no EDE 17: $out"; fi
	check "$m: rpz cname redirect" garden.example.net. "$(q @$A1 walled.example.)"
	check "$m: rpz drop: no answer" "" "$(dig +time=1 +tries=1 @$A1 drop.example. 2>/dev/null | grep 'status:')"
	if dig +time=2 +tries=1 +ignore @$A1 tcp.example. 2>/dev/null | grep -q 'flags:.* tc'; then ok "$m: rpz tcp-only: TC over UDP"; else fail "$m: tcp-only: no TC"; fi
	check "$m: rpz client-ip trigger" NXDOMAIN "$(st -b 127.0.100.51 @$A1 ok.example.)"
	check "$m: no trigger" 192.0.2.82 "$(q @$A1 ok.example.)"
	if grep -q 'rpz: applied \[rpz.local.\] QNAME nx.example. A nxdomain' "$IT_WORK/petrel.log"; then ok "$m: rpz-log line"; else fail "$m: no rpz-log line"; fi
	# control: rpz_disable / rpz_enable
	check "$m: rpz_disable" ok "$(ctl rpz_disable rpz.local.)"
	check "$m: disabled: nx.example. resolves" 192.0.2.81 "$(q @$A1 nx.example.)"
	check "$m: rpz_enable" ok "$(ctl rpz_enable rpz.local)"
	check "$m: enabled again" NXDOMAIN "$(st @$A1 nx.example.)"
	check "$m: rpz_disable of an unknown zone" "error no rpz zone named 'nope.'" "$(ctl rpz_disable nope.)"
	# control: the view commands
	check "$m: view_list_local_data" "www.example. 300 A 10.0.0.80" "$(ctl view_list_local_data inside)"
	check "$m: view_local_data" ok "$(ctl view_local_data inside 'later.example. 300 A 10.0.0.84')"
	check "$m: the added view data answers" 10.0.0.84 "$(q @$A2 later.example.)"
	check "$m: ... only in the view" 192.0.2.84 "$(q @$A1 later.example.)"
	check "$m: view_local_data_remove" ok "$(ctl view_local_data_remove inside later.example.)"
	check "$m: removed" 192.0.2.84 "$(q @$A2 later.example.)"
	check "$m: view_local_zone" ok "$(ctl view_local_zone inside corp.example. static)"
	check "$m: view_list_local_zones" "$(printf 'example. typetransparent\ncorp.example. static')" "$(ctl view_list_local_zones inside)"
	check "$m: the view zone answers" NXDOMAIN "$(st @$A2 x.corp.example.)"
	check "$m: view_local_zone_remove" ok "$(ctl view_local_zone_remove inside corp.example.)"
	check "$m: view_list_local_zones after" "example. typetransparent" "$(ctl view_list_local_zones inside)"
	check "$m: view command on an unknown view" "error no view 'nope'" "$(ctl view_local_zone nope a. static)"
	# a changed zone file, picked up by reload
	cp "$IT_WORK/rpz.zone" "$IT_WORK/rpz.zone.orig"
	echo "ok.example CNAME ." >> "$IT_WORK/rpz.zone"
	check "$m: reload" ok "$(ctl reload)"
	for i in $(seq 30); do [ "$(st @$A1 ok.example.)" = NXDOMAIN ] && break; sleep 0.1; done
	check "$m: the new rule after reload" NXDOMAIN "$(st @$A1 ok.example.)"
	cp "$IT_WORK/rpz.zone.orig" "$IT_WORK/rpz.zone"
	resolver_stop
}

for m in pthreads fork; do
	case " $(petrel_models) " in
	*" $m "*) run_model "$m" ;;
	*) echo "skip $m: not in this build" ;;
	esac
done

echo "policy: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
