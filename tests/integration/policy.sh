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
# pthreads and fork thread models; response-ip (always_refuse, redirect
# with data, fresh and cached) and tags (a local-zone-tag zone, a tagged
# client from 127.0.100.60 with its access-control-tag-action). RPZ by
# zone transfer (pthreads): a
# second NSD on 127.0.100.11 is the primary of rpzx.local. with TSIG
# (AXFR at start; NSD 4.6 answers an IXFR with the whole zone); a change
# there plus ldns-notify is in force within 2 s while a client keeps
# asking; ixfr_server.pl on 127.0.100.12 serves rpzi. by IXFR (a real
# difference); the zone files are written; rpzx.local. is served to
# clients too (for-downstream: yes, its own transfer, the NOTIFY passed on).
# rpz.local. has for-downstream:
# yes (the zone itself answered with AA); an RPZ CNAME target and a
# response-ip CNAME redirect target are chased.
# RPZ by url: (pthreads):
# http_server.pl on 127.0.100.20 port 8080 serves rpzh. (HTTP, chunked; a
# new serial there is fetched at the SOA refresh), openssl s_server -WWW on
# 127.0.100.21 port 8443 serves rpzs. (HTTPS, its certificate in
# tls-cert-bundle).
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
it_suite policy
A1=127.0.100.1
A2=127.0.100.2
GUEST=127.0.100.50
KID=127.0.100.60
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
fresh	A	192.0.2.85
bad	A	192.0.2.86
redir	A	192.0.2.87
play	A	192.0.2.88
ctl	A	192.0.2.89
hweb2	A	192.0.2.90
garden	A	192.0.2.91
rcn	A	192.0.2.92
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
walled.example	CNAME	garden.example.
32.51.100.0.127.rpz-client-ip	CNAME	.
EOF
nsd_start auth "$AUTH" "example.=$IT_WORK/example.zone" || exit 1

# the RPZ primaries: NSD with TSIG, and ixfr_server.pl for IXFR
PRIM=127.0.100.11
IXPRIM=127.0.100.12
K1=$(printf 'petrel-policy-rpz-test-key!!' | base64)
rpzx_zone() { # SERIAL [EXTRA RULE]
	printf '$TTL 60\n@ SOA localhost. root.localhost. %s 3600 600 86400 60\n' "$1"
	printf '  NS localhost.\nblocked.example CNAME .\n'
	[ -n "${2:-}" ] && printf '%s\n' "$2"
	return 0
}
# the url: servers: HTTP (chunked) and HTTPS
WEB=127.0.100.20
WEBS=127.0.100.21
web_zone() { # ZONE SERIAL RULE...
	local z=$1 s=$2
	shift 2
	printf '$TTL 60\n%s. SOA localhost. root.localhost. %s 1 1 86400 60\n' "$z" "$s"
	printf '%s. NS localhost.\n' "$z"
	printf '%s\n' "$@"
}
mkdir -p "$IT_WORK/www"
web_zone rpzh 1 "hweb.example.rpzh. CNAME ." > "$IT_WORK/www/rpzh.zone"
web_zone rpzs 1 "sweb.example.rpzs. CNAME ." > "$IT_WORK/www/rpzs.zone"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-days 2 -subj "/CN=$WEBS" -addext "subjectAltName=IP:$WEBS" \
	-keyout "$IT_WORK/web.key" -out "$IT_WORK/web.pem" >/dev/null 2>&1 ||
	{ echo "policy: openssl req failed"; exit 1; }
perl "$HERE/http_server.pl" $WEB 8080 "$IT_WORK/www" > "$IT_WORK/http.log" 2>&1 9>&- &
it_track $!
( cd "$IT_WORK/www" && exec openssl s_server -WWW -quiet -accept $WEBS:8443 \
	-cert "$IT_WORK/web.pem" -key "$IT_WORK/web.key" ) > "$IT_WORK/https.log" 2>&1 9>&- &
it_track $!
for hp in $WEB/8080 $WEBS/8443; do
	for i in $(seq 100); do
		(exec 3<>"/dev/tcp/$hp") 2>/dev/null && break
		sleep 0.1
	done
done

mkdir -p "$IT_WORK/nsd-prim"
rpzx_zone 1 > "$IT_WORK/nsd-prim/rpzx.zone"
cat > "$IT_WORK/nsd-prim/nsd.conf" <<EOF
server:
  ip-address: $PRIM
  port: 53
  username: ""
  chroot: ""
  zonesdir: "$IT_WORK/nsd-prim"
  pidfile: "$IT_WORK/nsd-prim/nsd.pid"
  database: ""
  zonelistfile: "$IT_WORK/nsd-prim/zone.list"
  xfrdfile: "$IT_WORK/nsd-prim/xfrd.state"
  xfrdir: "$IT_WORK/nsd-prim"
  logfile: "$IT_WORK/nsd-prim/nsd.log"
  verbosity: 1
  server-count: 1
  reuseport: no
remote-control:
  control-enable: no
key:
  name: k1
  algorithm: hmac-sha256
  secret: "$K1"
zone:
  name: rpzx.local.
  zonefile: rpzx.zone
  provide-xfr: 127.0.0.0/8 k1
EOF
"$NSD" -d -c "$IT_WORK/nsd-prim/nsd.conf" >"$IT_WORK/nsd-prim/nsd.out" 2>&1 9>&- &
it_track $!
it_track_pidfile "$IT_WORK/nsd-prim/nsd.pid"
for i in $(seq 50); do
	dig +time=1 +tries=1 +norec @$PRIM rpzx.local. SOA 2>/dev/null | grep -q 'status: NOERROR' && break
	sleep 0.1
done
perl "$HERE/ixfr_server.pl" $IXPRIM rpzi ixfr > "$IT_WORK/ixfr.log" 2>&1 9>&- &
it_track $!
for i in $(seq 100); do
	(exec 3<>"/dev/tcp/$IXPRIM/53") 2>/dev/null && break
	sleep 0.1
done

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
	module-config: "respip validator iterator"
	tls-cert-bundle: "$IT_WORK/web.pem"
	response-ip: 192.0.2.86/32 always_refuse
	response-ip: 192.0.2.87/32 redirect
	response-ip-data: 192.0.2.87/32 "A 10.7.7.7"
	response-ip: 192.0.2.92/32 redirect
	response-ip-data: 192.0.2.92/32 "CNAME garden.example."
	define-tag: "kids"
	access-control-tag: $KID/32 "kids"
	access-control-tag-action: $KID/32 kids always_nxdomain
	local-zone: "play.example." static
	local-zone-tag: "play.example." "kids"
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
	for-downstream: yes
EOF
	[ "$1" = pthreads ] && cat <<EOF
tsig-key:
	name: k1
	algorithm: hmac-sha256
	secret: "$K1"
rpz:
	name: rpzx.local.
	primary: $PRIM k1
	allow-notify: 127.0.0.1
	zonefile: "$IT_WORK/rpzx.copy"
	for-downstream: yes
rpz:
	name: rpzi.
	master: $IXPRIM
	zonefile: "$IT_WORK/rpzi.copy"
rpz:
	name: rpzh.
	url: "http://$WEB:8080/rpzh.zone"
	zonefile: "$IT_WORK/rpzh.copy"
rpz:
	name: rpzs.
	url: "https://$WEBS:8443/rpzs.zone"
EOF
	cat <<EOF
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
	# response-ip, fresh and from the cache
	check "$m: response-ip always_refuse" REFUSED "$(st @$A1 bad.example.)"
	check "$m: response-ip always_refuse, cached" REFUSED "$(st @$A1 bad.example.)"
	check "$m: response-ip redirect with response-ip-data" 10.7.7.7 "$(q @$A1 redir.example.)"
	check "$m: response-ip redirect, cached" 10.7.7.7 "$(q @$A1 redir.example.)"
	# a redirect to a CNAME: its target chased (fresh: a new mesh client
	# from the answer callback; then from the cache)
	check "$m: response-ip CNAME redirect, chased" "garden.example. 192.0.2.91" "$(q @$A1 rcn.example. | tr '\n' ' ' | sed 's/ $//')"
	check "$m: response-ip CNAME redirect, cached" "garden.example. 192.0.2.91" "$(q @$A1 rcn.example. | tr '\n' ' ' | sed 's/ $//')"
	# tags: play.example. is a zone for the clients tagged kids only
	check "$m: a tagged zone, untagged client: resolved" 192.0.2.88 "$(q @$A1 play.example.)"
	check "$m: a tagged zone, client tagged kids: its tag action" NXDOMAIN "$(st -b $KID @$A1 play.example.)"
	check "$m: the tagged client elsewhere: resolved" 192.0.2.80 "$(q -b $KID @$A1 www.example.)"
	# RPZ actions
	out=$(dig +time=2 +tries=1 @$A1 nx.example. 2>/dev/null)
	check "$m: rpz nxdomain" NXDOMAIN "$(echo "$out" | sed -n 's/.*status: \([A-Z]*\).*/\1/p')"
	if echo "$out" | grep -q 'EDE: 15 (Blocked)'; then ok "$m: rpz nxdomain carries EDE 15"; else fail "$m: no EDE 15: $out"; fi
	check "$m: rpz wildcard nodata" "NOERROR:" "$(st @$A1 a.b.ads.example.):$(q @$A1 a.b.ads.example.)"
	check "$m: rpz local data" 192.0.2.10 "$(q @$A1 data.example.)"
	out=$(dig +time=2 +tries=1 @$A1 data.example. 2>/dev/null)
	if echo "$out" | grep -q 'EDE: 17 (Filtered)'; then ok "$m: local data carries EDE 17"; else fail "$m: no EDE 17: $out"; fi
	# the CNAME's target is chased (resolved; from the cache the 2nd time)
	check "$m: rpz cname redirect, its target chased" "garden.example. 192.0.2.91" "$(q @$A1 walled.example. | tr '\n' ' ' | sed 's/ $//')"
	check "$m: rpz cname redirect, chased from the cache" "garden.example. 192.0.2.91" "$(q @$A1 walled.example. | tr '\n' ' ' | sed 's/ $//')"
	check "$m: rpz cname redirect, kdig" "garden.example. 192.0.2.91" "$(kdig +short +time=2 +retry=0 @$A1 walled.example. A 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
	check "$m: rpz drop: no answer" "" "$(dig +time=1 +tries=1 @$A1 drop.example. 2>/dev/null | grep 'status:')"
	if dig +time=2 +tries=1 +ignore @$A1 tcp.example. 2>/dev/null | grep -q 'flags:.* tc'; then ok "$m: rpz tcp-only: TC over UDP"; else fail "$m: tcp-only: no TC"; fi
	check "$m: rpz client-ip trigger" NXDOMAIN "$(st -b 127.0.100.51 @$A1 ok.example.)"
	check "$m: no trigger" 192.0.2.82 "$(q @$A1 ok.example.)"
	# for-downstream: yes: the rpz zone itself answered, with AA
	out=$(dig +time=2 +tries=1 +norec @$A1 nx.example.rpz.local. CNAME 2>/dev/null)
	if echo "$out" | grep -q 'flags: qr aa' && echo "$out" | grep -q 'nx.example.rpz.local.	*[0-9]*	IN	CNAME	\.$'; then
		ok "$m: rpz for-downstream: the zone's record, with AA"; else fail "$m: rpz for-downstream: $out"; fi
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
	[ "$m" = pthreads ] && rpz_transfer
	resolver_stop
}

# RPZ by zone transfer (the pthreads run only: with fork every worker
# process transfers for itself, and a NOTIFY reaches one of them)
rpz_transfer() {
	local i t0 t1 ms n asker
	for i in $(seq 50); do [ "$(st @$A1 blocked.example.)" = NXDOMAIN ] && break; sleep 0.1; done
	check "rpz by AXFR with TSIG from NSD: the rule is in force" NXDOMAIN "$(st @$A1 blocked.example.)"
	if grep -q 'blocked.example' "$IT_WORK/rpzx.copy" 2>/dev/null; then ok "rpz zonefile written after the transfer"; else fail "no rpzx.copy"; fi
	# for-downstream: yes with a primary: the zone transferred for clients too
	for i in $(seq 50); do dig +time=1 +tries=1 +norec @$A1 blocked.example.rpzx.local. CNAME 2>/dev/null | grep -q 'flags: qr aa' && break; sleep 0.1; done
	check "rpz for-downstream by AXFR: the zone's record, with AA" "." "$(dig +short +time=2 +tries=1 +norec @$A1 blocked.example.rpzx.local. CNAME 2>/dev/null)"
	check "fresh.example. resolves before the change" 192.0.2.85 "$(q @$A1 fresh.example.)"
	# a client asking all through the change
	rm -f "$IT_WORK/stop-asking" "$IT_WORK/asking.log"
	( while [ ! -e "$IT_WORK/stop-asking" ]; do
		r=$(dig +time=1 +tries=1 @$A1 www.example. 2>/dev/null | sed -n 's/.*status: \([A-Z]*\).*/\1/p')
		echo "${r:-TIMEOUT}" >> "$IT_WORK/asking.log"
		sleep 0.02
	done ) &
	asker=$!
	sleep 0.3
	rpzx_zone 2 "fresh.example CNAME ." > "$IT_WORK/nsd-prim/rpzx.zone"
	kill -HUP "$(cat "$IT_WORK/nsd-prim/nsd.pid")"
	for i in $(seq 50); do
		dig +short +time=1 +tries=1 +norec @$PRIM rpzx.local. SOA 2>/dev/null | grep -q ' 2 3600 ' && break
		sleep 0.1
	done
	t0=$(date +%s%N)
	ldns-notify -z rpzx.local. -s 2 -p 53 $A1 >/dev/null 2>&1
	for i in $(seq 60); do
		[ "$(st @$A1 fresh.example.)" = NXDOMAIN ] && break
		sleep 0.05
	done
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	if [ "$(st @$A1 fresh.example.)" = NXDOMAIN ] && [ "$ms" -le 2000 ]; then
		ok "a change on the primary + NOTIFY is in force after ${ms} ms"
	else
		fail "the change is not in force within 2 s (${ms} ms)"; tail -5 "$IT_WORK/petrel.log"
	fi
	sleep 0.3
	touch "$IT_WORK/stop-asking"
	wait "$asker" 2>/dev/null
	n=$(grep -vc '^NOERROR$' "$IT_WORK/asking.log")
	check "queries answered all through the transfer ($(wc -l < "$IT_WORK/asking.log") asked)" 0 "$n"
	if grep -q 'fresh.example' "$IT_WORK/rpzx.copy"; then ok "the zonefile holds the change"; else fail "rpzx.copy not rewritten"; fi
	# ... and the zone served for-downstream has it (the NOTIFY passed on)
	for i in $(seq 40); do [ "$(dig +short +time=1 +tries=1 +norec @$A1 fresh.example.rpzx.local. CNAME 2>/dev/null)" = . ] && break; sleep 0.05; done
	check "rpz for-downstream: the change after the NOTIFY" "." "$(dig +short +time=2 +tries=1 +norec @$A1 fresh.example.rpzx.local. CNAME 2>/dev/null)"
	# petrel-control auth_zone_transfer: an rpz zone transferred now
	# (serial 3 on the primary, no NOTIFY)
	check "ctl.example. resolves before" 192.0.2.89 "$(q @$A1 ctl.example.)"
	rpzx_zone 3 "fresh.example CNAME .
ctl.example CNAME ." > "$IT_WORK/nsd-prim/rpzx.zone"
	kill -HUP "$(cat "$IT_WORK/nsd-prim/nsd.pid")"
	for i in $(seq 50); do
		dig +short +time=1 +tries=1 +norec @$PRIM rpzx.local. SOA 2>/dev/null | grep -q ' 3 3600 ' && break
		sleep 0.1
	done
	check "auth_zone_transfer of an rpz zone" ok "$(ctl auth_zone_transfer rpzx.local.)"
	for i in $(seq 40); do [ "$(st @$A1 ctl.example.)" = NXDOMAIN ] && break; sleep 0.05; done
	check "... the new rule is in force" NXDOMAIN "$(st @$A1 ctl.example.)"
	# a NOTIFY from an address that may not send one
	check "a NOTIFY from outside allow-notify is REFUSED" REFUSED "$(dig +time=1 +tries=1 +opcode=notify -b 127.0.100.50 @$A1 rpzx.local. SOA 2>/dev/null | sed -n 's/.*status: \([A-Z]*\).*/\1/p')"
	# IXFR: rpzi. at serial 1 (www A 192.0.2.1) from an old zone file
	for i in $(seq 50); do [ "$(q @$A1 www.)" = 192.0.2.2 ] && break; sleep 0.1; done
	check "rpz by IXFR: the difference 1 -> 2 applied" 192.0.2.2 "$(q @$A1 www.)"
	if grep -q 'IXFR: difference 1 -> 2' "$IT_WORK/ixfr.log" && grep -q 'rpz rpzi.: serial 2 from .* by IXFR$' "$IT_WORK/petrel.log"; then
		ok "rpzi. came by IXFR"; else fail "rpzi. not by IXFR"; cat "$IT_WORK/ixfr.log"; fi
	if grep -q '192.0.2.2' "$IT_WORK/rpzi.copy" && ! grep -q '192.0.2.1$' "$IT_WORK/rpzi.copy"; then
		ok "rpzi. zonefile written"; else fail "rpzi.copy: $(cat "$IT_WORK/rpzi.copy")"; fi
	# url: the zones fetched over HTTP and HTTPS at start
	for i in $(seq 50); do [ "$(st @$A1 hweb.example.)" = NXDOMAIN ] && break; sleep 0.1; done
	check "rpz by url: over HTTP (chunked): the rule is in force" NXDOMAIN "$(st @$A1 hweb.example.)"
	if grep -q 'hweb.example' "$IT_WORK/rpzh.copy" 2>/dev/null; then ok "rpz url: zonefile written"; else fail "no rpzh.copy"; fi
	for i in $(seq 50); do [ "$(st @$A1 sweb.example.)" = NXDOMAIN ] && break; sleep 0.1; done
	check "rpz by url: over HTTPS (tls-cert-bundle): the rule is in force" NXDOMAIN "$(st @$A1 sweb.example.)"
	# a new serial on the web server: fetched at the SOA refresh (1 s)
	check "hweb2.example. resolves before" 192.0.2.90 "$(q @$A1 hweb2.example.)"
	web_zone rpzh 2 "hweb.example.rpzh. CNAME ." "hweb2.example.rpzh. CNAME ." > "$IT_WORK/www/rpzh.zone.new"
	mv "$IT_WORK/www/rpzh.zone.new" "$IT_WORK/www/rpzh.zone"
	for i in $(seq 50); do [ "$(st @$A1 hweb2.example.)" = NXDOMAIN ] && break; sleep 0.1; done
	check "rpz by url: the new serial is fetched at the SOA refresh" NXDOMAIN "$(st @$A1 hweb2.example.)"
}


cat > "$IT_WORK/rpzi.copy" <<'EOF'
rpzi.      3600 IN SOA ns1.zz. h.rpzi. 1 3600 600 604800 300
rpzi.      3600 IN NS ns1.zz.
www.rpzi.  3600 IN A 192.0.2.1
EOF
touch -d '2 hours ago' "$IT_WORK/rpzi.copy"

for m in pthreads fork; do

	case " $(petrel_models) " in
	*" $m "*) run_model "$m" ;;
	*) skip "$m: not in this build" ;;
	esac
done

finish
