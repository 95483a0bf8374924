#!/bin/bash
# tests/integration/unbound-control.sh - Unbound's own unbound-control,
# unbound-control-setup and munin plugin against a running petrel.
#
#   bash tests/integration/unbound-control.sh [PETREL]
#   (or PETREL=... in the env; UNBOUND_CONTROL, UNBOUND_CONTROL_SETUP and
#   MUNIN_PLUGIN to use other copies; MODELS="pthreads" to skip fork)
#
# An operator replacing Unbound keeps unbound-control and the tools built
# on it. unbound-control-setup makes the keys (unbound_server.key/pem,
# unbound_control.key/pem); petrel reads them as they are. For each thread
# model and each transport (unix socket, TLS) every control command petrel
# has is sent through the real unbound-control ("UBCT1" requests), with
# the bulk commands fed on stdin as block-list tools do; the answers and
# their effect on DNS answers are checked. Then Debian's munin plugin
# (unbound_munin_) prints its config and its values from petrel's stats.
#
# unbound-control parses the config file with Unbound's parser, which
# does not know petrel's own options (thread-model, event-backend,
# http-metrics-interface): with pthreads the one file serves both, with
# fork unbound-control gets a copy without the thread-model line.
#
# Addresses: 127.0.80.1 (petrel), 127.0.80.2 (NSD); ports 61900-61903.
# Prints "unbound-control: N passed, M failed"; exit 0 when nothing failed.
# Stops everything it started (lib.sh's trap).

HERE=$(cd "$(dirname "$0")" && pwd)
PETREL=${1:-${PETREL:-petrel}}
UC=${UNBOUND_CONTROL:-/usr/sbin/unbound-control}
UCSETUP=${UNBOUND_CONTROL_SETUP:-/usr/sbin/unbound-control-setup}
MUNIN=${MUNIN_PLUGIN:-/usr/share/munin/plugins/unbound_munin_}
MODELS=${MODELS:-pthreads fork}
. "$HERE/lib.sh"


command -v "$NSD" >/dev/null 2>&1 || NSD=$(command -v nsd)
for t in "$PETREL" "$UC" "$UCSETUP" "$NSD" dig; do
	if ! command -v "$t" >/dev/null 2>&1 && [ ! -x "$t" ]; then
		echo "unbound-control: missing $t (contrib/setup-debian.sh" \
			"installs it)" >&2
		exit 1
	fi
done

IT_QUIET=1
it_suite unbound-control
W=$IT_WORK
IP=127.0.80.1
NSD_IP=127.0.80.2
DNS_PORT=61900
NSD_PORT=61901
CTL_PORT=61902
for a in $IP $NSD_IP; do
	ip addr show dev lo 2>/dev/null | grep -q "inet $a/" ||
		ip addr add $a/32 dev lo 2>/dev/null
done

cat > "$W/ctl.zone" <<'EOF'
$ORIGIN ctl.example.
$TTL 300
@	IN SOA ns hostmaster 1 3600 600 86400 60
@	IN NS ns
ns	IN A 127.0.80.2
www	IN A 192.0.2.1
mail	IN A 192.0.2.2
EOF
cat > "$W/stub.zone" <<'EOF'
$ORIGIN stub.example.
$TTL 300
@	IN SOA ns hostmaster 1 3600 600 86400 60
@	IN NS ns
ns	IN A 127.0.80.2
www	IN A 192.0.2.21
EOF
# nothing leaves the machine: the root servers are a silent loopback
# address
printf '.\t3600000 IN NS a.root.\na.root.\t3600000 IN A 127.0.80.3\n' \
	> "$W/root.hints"
export NSD_PORT
if ! nsd_start uc $NSD_IP ctl.example="$W/ctl.zone" \
	stub.example="$W/stub.zone"; then
	echo "unbound-control: 0 passed, 1 failed"
	exit 1
fi

# Unbound's key setup, as an operator runs it
mkdir -p "$W/keys"
if "$UCSETUP" -d "$W/keys" >"$W/setup.out" 2>&1; then
	ok "unbound-control-setup"
else
	bad "unbound-control-setup: $(tail -2 "$W/setup.out")"
fi

# write_conf FILE MODEL TRANSPORT [UNBOUND_ONLY]: the config; with
# UNBOUND_ONLY=1 without petrel's own thread-model line
write_conf() {
	local f=$1 model=$2 tr=$3 ubonly=${4:-0}
	{
		echo "server:"
		echo "  interface: $IP@$DNS_PORT"
		echo "  num-threads: 2"
		[ "$model" = pthreads ] || [ "$ubonly" = 1 ] ||
			echo "  thread-model: $model"
		echo "  do-daemonize: no"
		echo "  pidfile: \"\""
		echo "  chroot: \"\""
		echo "  username: \"\""
		echo "  directory: \"$W\""
		echo "  logfile: \"$W/petrel.log\""
		echo "  verbosity: 1"
		echo "  do-not-query-localhost: no"
		echo "  root-hints: \"$W/root.hints\""
		echo "  extended-statistics: yes"
		echo "  statistics-cumulative: no"
		echo "remote-control:"
		echo "  control-enable: yes"
		if [ "$tr" = unix ]; then
			echo "  control-interface: $W/ctl.sock"
		else
			echo "  control-interface: $IP"
			echo "  control-port: $CTL_PORT"
			echo "  control-use-cert: yes"
		fi
		echo "  server-key-file: \"$W/keys/unbound_server.key\""
		echo "  server-cert-file: \"$W/keys/unbound_server.pem\""
		echo "  control-key-file: \"$W/keys/unbound_control.key\""
		echo "  control-cert-file: \"$W/keys/unbound_control.pem\""
		echo "forward-zone:"
		echo "  name: \"ctl.example.\""
		echo "  forward-addr: $NSD_IP@$NSD_PORT"
	} > "$f"
}

PID=""
CONF=""
UCONF=""
# uc ARGS...: run unbound-control; output in $OUT, status in $RC
uc() {
	OUT=$("$UC" -c "$UCONF" "$@" 2>&1)
	RC=$?
}
# ucin INPUT ARGS...: the same with INPUT on stdin
ucin() {
	local in=$1
	shift
	OUT=$(printf '%s' "$in" | "$UC" -c "$UCONF" "$@" 2>&1)
	RC=$?
}
# expect_ok DESC PATTERN ARGS...: rc 0 and output matches the ERE
expect_ok() {
	local desc=$1 pat=$2
	shift 2
	uc "$@"
	if [ $RC = 0 ] && echo "$OUT" | grep -Eq -- "$pat"; then
		ok "$TAG $desc"
	else
		bad "$TAG $desc: rc $RC, output: $(echo "$OUT" | head -5)"
	fi
}
# expect_exact DESC WANT ARGS...: rc 0 and exactly WANT (Unbound's bytes,
# which scripts compare)
expect_exact() {
	local desc=$1 want=$2
	shift 2
	uc "$@"
	if [ $RC = 0 ] && [ "$OUT" = "$want" ]; then
		ok "$TAG $desc"
	else
		bad "$TAG $desc: rc $RC, output: '$(echo "$OUT" | head -5)', want '$want'"
	fi
}
# expect_err DESC ARGS...: rc 1 and an "error" first line
expect_err() {
	local desc=$1
	shift
	uc "$@"
	if [ $RC = 1 ] && echo "$OUT" | head -1 | grep -q '^error'; then
		ok "$TAG $desc"
	else
		bad "$TAG $desc: rc $RC, output: $(echo "$OUT" | head -3)"
	fi
}
q() { dig +time=2 +tries=1 @$IP -p $DNS_PORT "$@" 2>/dev/null; }
qshort() { q +short "$@"; }
# every one of 6 separate clients (spread over the workers) sees it
all_see() {
	local want=$1 i got
	shift
	for i in 1 2 3 4 5 6; do
		got=$(qshort "$@")
		[ "$got" = "$want" ] || return 1
	done
	return 0
}
rcode_of() { q "$@" | sed -n 's/.*status: \([A-Z]*\).*/\1/p' | head -1; }

start_petrel() {
	"$PETREL" -d -c "$CONF" >>"$W/petrel.out" 2>&1 &
	PID=$!
	it_track $PID
	for i in $(seq 50); do
		if "$UC" -c "$UCONF" status >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	bad "petrel did not start with $CONF"
	tail -5 "$W/petrel.log" "$W/petrel.out" >&2
	return 1
}

stop_petrel() {
	uc stop
	[ $RC = 0 ] && [ "$OUT" = ok ] && ok "$TAG stop" ||
		bad "$TAG stop answered rc $RC '$OUT'"
	for i in $(seq 30); do
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$PID" 2>/dev/null; then
		bad "$TAG petrel still running 3 s after stop"
		it_kill "$PID"
	else
		ok "$TAG petrel exited after stop"
	fi
	wait "$PID" 2>/dev/null
	PID=""
	# stopped: unbound-control status fails (3, "not running", over
	# TCP; 1 with the unix socket gone)
	uc status
	if [ $RC = 3 ] || { [ $RC = 1 ] && [ "${TAG#*/}" = "unix]" ]; }; then
		ok "$TAG status of a stopped server: $RC"
	else
		bad "$TAG status of a stopped server: rc $RC '$OUT'"
	fi
}

# run_commands: every command petrel has, through unbound-control
run_commands() {
	expect_ok "status" "is running" status
	expect_ok "status names the threads" "^threads: 2" status
	# Unbound's options line: control(namedpipe) on a unix socket,
	# control(ssl) over TLS
	if [ "${TAG#*/}" = "unix]" ]; then
		expect_ok "status: Unbound's options line" \
			"^options: reuseport control\(namedpipe\)$" status
	else
		expect_ok "status: Unbound's options line" \
			"^options: reuseport control\(ssl\)$" status
	fi
	all_see 192.0.2.1 www.ctl.example A &&
		ok "$TAG forwarded answer" || bad "$TAG forwarded answer"
	qshort www.ctl.example A >/dev/null
	expect_ok "stats: extended" "^num\.query\.type\.A=[1-9]" stats_noreset
	expect_ok "stats" "^total\.num\.queries=[1-9]" stats
	uc stats
	echo "$OUT" | grep -q '^total\.num\.queries=0$' &&
		ok "$TAG stats reset the counters" ||
		bad "$TAG stats did not reset: $(echo "$OUT" | grep total.num.queries=)"
	expect_ok "stats_noreset" "^time\.up=" stats_noreset
	expect_ok "flush_stats" "^ok$" flush_stats
	expect_ok "verbosity" "^ok$" verbosity 2
	expect_ok "verbosity back" "^ok$" verbosity 1
	expect_ok "log_reopen" "^ok$" log_reopen
	expect_ok "lookup" "forwarding request" lookup www.ctl.example
	expect_ok "cache_lookup" "www\.ctl\.example\." cache_lookup www.ctl.example
	expect_err "cache_lookup without a name" cache_lookup
	# Unbound's line, every field in its order and with its name
	expect_ok "dump_infra" "^$NSD_IP@$NSD_PORT \. ttl [0-9]+ ping [0-9]+ var [0-9]+ rtt [0-9]+ rto [0-9]+ tA [0-9]+ tAAAA [0-9]+ tother [0-9]+ ednsknown [01] edns (0|-1) delay [0-9]+ lame dnssec [01] rec [01] A [01] other [01]$" dump_infra
	expect_ok "dump_requestlist" "" dump_requestlist
	[ "$(echo "$OUT" | sed -n 1,2p)" = "thread #0
#   type cl name    seconds    module status" ] &&
		ok "$TAG dump_requestlist: Unbound's header" ||
		bad "$TAG dump_requestlist header: $(echo "$OUT" | head -2)"
	expect_exact "view_list_local_zones of an unknown view (exit 0)" \
		"no view with name: nosuch" view_list_local_zones nosuch
	# Unbound's answers, byte for byte: "ok" where Unbound says no
	# more, the counts where it gives them
	expect_exact "flush_requestlist" "ok" flush_requestlist
	expect_exact "flush" "ok" flush www.ctl.example
	expect_exact "flush_type" "ok" flush_type mail.ctl.example A
	expect_ok "flush_zone" "^ok removed [0-9]+ rrsets, [0-9]+ messages and [0-9]+ key entries$" flush_zone ctl.example
	expect_ok "flush_negative" "^ok removed [0-9]+ rrsets, [0-9]+ messages and [0-9]+ key entries$" flush_negative
	expect_ok "flush_bogus" "^ok removed [0-9]+ rrsets, [0-9]+ messages and [0-9]+ key entries$" flush_bogus
	expect_exact "flush_infra all" "ok" flush_infra all
	expect_exact "flush_infra IP" "ok" flush_infra $NSD_IP
	# a dump taken through unbound-control loads back the same way
	qshort www.ctl.example A >/dev/null
	uc dump_cache
	if [ $RC = 0 ] && echo "$OUT" | grep -q '^EOF$'; then
		ok "$TAG dump_cache"
		printf '%s\n' "$OUT" > "$W/dump"
		expect_ok "flush_zone before load" "^ok" flush_zone ctl.example
		OUT=$("$UC" -c "$UCONF" load_cache < "$W/dump" 2>&1)
		RC=$?
		[ $RC = 0 ] && [ "$OUT" = ok ] && ok "$TAG load_cache: ok" ||
			bad "$TAG load_cache: rc $RC '$OUT'"
		expect_ok "cache_lookup after load" "www\.ctl\.example\." \
			cache_lookup www.ctl.example
	else
		bad "$TAG dump_cache: rc $RC $(echo "$OUT" | tail -2)"
	fi
	# local data, one at a time
	expect_ok "local_zone" "^ok$" local_zone one.example static
	expect_ok "local_data" "^ok$" local_data "www.one.example. 60 IN A 192.0.2.31"
	all_see 192.0.2.31 www.one.example A &&
		ok "$TAG local_data answers" || bad "$TAG local_data answers"
	expect_ok "list_local_zones" "^one\.example\. static$" list_local_zones
	expect_ok "list_local_data" "^www\.one\.example\..*192\.0\.2\.31" list_local_data
	# the default zones and their records, in Unbound's format (each
	# record followed by an empty line, as Unbound prints it)
	expect_ok "list_local_zones: the defaults" "^localhost\. redirect$" list_local_zones
	echo "$OUT" | grep -qx '127\.in-addr\.arpa\. static' &&
		ok "$TAG list_local_zones: 127.in-addr.arpa. static" ||
		bad "$TAG list_local_zones: no 127.in-addr.arpa.: $(echo "$OUT" | head -3)"
	uc list_local_data
	if [ $RC = 0 ] && printf '%s\n' "$OUT" | grep -A1 -x 'localhost\.	10800	IN	A	127\.0\.0\.1' | sed -n 2p | grep -qx ''; then
		ok "$TAG list_local_data: the defaults, Unbound's lines"
	else
		bad "$TAG list_local_data: $(echo "$OUT" | head -4)"
	fi
	expect_ok "local_data_remove" "^ok$" local_data_remove www.one.example
	expect_ok "local_zone_remove" "^ok$" local_zone_remove one.example
	expect_err "local_zone with a bad type" local_zone two.example nonsense
	# the bulk commands, from stdin as block-list tools feed them
	ucin "$(printf 'www.ctl.example. always_nxdomain\ntrack.example. refuse\nbad line with words\n')" local_zones
	if [ $RC = 1 ] && echo "$OUT" | grep -q '^error for input line: bad line' &&
		echo "$OUT" | grep -q '^added 2 zones$'; then
		ok "$TAG local_zones (bulk, one bad line)"
	else
		bad "$TAG local_zones: rc $RC '$OUT'"
	fi
	[ "$(rcode_of www.ctl.example A)" = NXDOMAIN ] &&
		ok "$TAG bulk zone answers" || bad "$TAG bulk zone answers"
	ucin "$(printf 'a.track.example. A 192.0.2.41\nb.track.example. TXT "two words"\n')" local_datas
	[ $RC = 0 ] && [ "$OUT" = "added 2 datas" ] &&
		ok "$TAG local_datas (bulk)" || bad "$TAG local_datas: rc $RC '$OUT'"
	all_see 192.0.2.41 a.track.example A &&
		ok "$TAG bulk data answers" || bad "$TAG bulk data answers"
	ucin "$(printf 'a.track.example.\nb.track.example.\n')" local_datas_remove
	[ $RC = 0 ] && [ "$OUT" = "removed 2 datas" ] &&
		ok "$TAG local_datas_remove" || bad "$TAG local_datas_remove: rc $RC '$OUT'"
	ucin "$(printf 'www.ctl.example.\ntrack.example.\n')" local_zones_remove
	[ $RC = 0 ] && [ "$OUT" = "removed 2 zones" ] &&
		ok "$TAG local_zones_remove" || bad "$TAG local_zones_remove: rc $RC '$OUT'"
	all_see 192.0.2.1 www.ctl.example A &&
		ok "$TAG bulk zone gone" || bad "$TAG bulk zone still answers"
	# forward and stub zones
	# as Unbound prints them: addresses without their port, the root
	# hints first among the stubs
	expect_exact "list_forwards" "ctl.example. IN forward $NSD_IP" list_forwards
	expect_ok "stub_add" "^ok$" stub_add stub.example $NSD_IP@$NSD_PORT
	expect_exact "list_stubs" ". IN stub prime a.root. 127.0.80.3
stub.example. IN stub noprime $NSD_IP" list_stubs
	all_see 192.0.2.21 www.stub.example A &&
		ok "$TAG stub answers" || bad "$TAG stub answers"
	# in Unbound's order of names, not in the order they were added
	expect_ok "stub_add (second)" "^ok$" stub_add s.example $NSD_IP@$NSD_PORT
	expect_exact "list_stubs: Unbound's order" ". IN stub prime a.root. 127.0.80.3
s.example. IN stub noprime $NSD_IP
stub.example. IN stub noprime $NSD_IP" list_stubs
	expect_ok "stub_remove (second)" "^ok$" stub_remove s.example
	expect_ok "stub_remove" "^ok$" stub_remove stub.example
	# a server lame for a zone (NSD refuses it): dump_infra names the
	# zone, as Unbound's per-zone lines do
	expect_ok "stub_add (lame)" "^ok$" stub_add lame.example $NSD_IP@$NSD_PORT
	q www.lame.example A >/dev/null
	expect_ok "dump_infra: the lame zone" "^$NSD_IP@$NSD_PORT lame\.example\. ttl [0-9]+ ping [0-9]+ var [0-9]+ rtt [0-9]+ rto [0-9]+ tA [0-9]+ tAAAA [0-9]+ tother [0-9]+ ednsknown [01] edns (0|-1) delay [0-9]+ lame dnssec 0 rec 0 A 1 other 1$" dump_infra
	expect_ok "stub_remove (lame)" "^ok$" stub_remove lame.example
	expect_ok "forward_add" "^ok$" forward_add other.example $NSD_IP@$NSD_PORT
	expect_ok "forward_remove" "^ok$" forward_remove other.example
	expect_ok "forward (none)" "^off" forward
	expect_ok "forward set" "^ok$" forward $NSD_IP@$NSD_PORT
	expect_ok "forward (show)" "^$NSD_IP@$NSD_PORT$" forward
	expect_ok "forward off" "^ok$" forward off
	expect_ok "forward (off)" "^off" forward
	# options changed at run time
	expect_ok "set_option" "^ok$" set_option cache-max-ttl: 1234
	expect_ok "get_option" "^1234$" get_option cache-max-ttl
	expect_err "set_option of a restart-only option" set_option num-threads: 4
	expect_err "get_option unknown" get_option no-such-option
	expect_err "unknown command" no_such_command
	expect_ok "reload_keep_cache" "^ok$" reload_keep_cache
	expect_ok "reload" "^ok$" reload
	all_see 192.0.2.1 www.ctl.example A &&
		ok "$TAG answers after reload" || bad "$TAG answers after reload"
}

for MODEL in $MODELS; do
	for TR in unix tls; do
		TAG="[$MODEL/$TR]"
		CONF=$W/petrel-$MODEL-$TR.conf
		write_conf "$CONF" "$MODEL" "$TR"
		if [ "$MODEL" = pthreads ]; then
			UCONF=$CONF
		else
			UCONF=$W/uc-$MODEL-$TR.conf
			write_conf "$UCONF" "$MODEL" "$TR" 1
		fi
		rm -f "$W/ctl.sock"
		start_petrel || continue
		run_commands
		stop_petrel
	done
done

# Side by side with Unbound: the same local zones, local data, views,
# stubs, forwards and auth zone in Unbound (on 127.0.80.4) and in petrel;
# the list commands a script parses answer the same bytes through
# unbound-control. (resolver.arpa. and service.arpa., default zones of
# petrel that Unbound 1.17 does not have yet, are switched off in both.)
UB=${UNBOUND:-/usr/sbin/unbound}
UB_IP=127.0.80.4
if [ -x "$UB" ]; then
	TAG="[parity/unix]"
	ip addr show dev lo 2>/dev/null | grep -q "inet $UB_IP/" ||
		ip addr add $UB_IP/32 dev lo 2>/dev/null
	cat > "$W/auth.zone" <<'EOF2'
$ORIGIN auth.example.
$TTL 300
@	IN SOA ns hostmaster 7 3600 600 86400 60
@	IN NS ns
ns	IN A 192.0.2.60
EOF2
	# parity_conf FILE ADDR SOCKET
	parity_conf() {
		{
			echo "server:"
			echo "  interface: $2@$DNS_PORT"
			echo "  num-threads: 1"
			echo "  do-daemonize: no"
			echo "  pidfile: \"\""
			echo "  chroot: \"\""
			echo "  username: \"\""
			echo "  directory: \"$W\""
			echo "  logfile: \"$1.log\""
			echo "  do-not-query-localhost: no"
			echo "  root-hints: \"$W/root.hints\""
			echo "  module-config: \"iterator\""
			echo "  local-zone: \"resolver.arpa.\" nodefault"
			echo "  local-zone: \"service.arpa.\" nodefault"
			echo "  local-zone: \"one.example.\" static"
			echo "  local-zone: \"Ref.Example.\" refuse"
			echo "  local-zone: \"z.example.\" transparent"
			echo "  local-zone: \"a.example.\" typetransparent"
			echo "  local-data: \"www.one.example. 60 IN A 192.0.2.31\""
			echo "  local-data: \"multi.one.example. 60 IN A 192.0.2.32\""
			echo "  local-data: \"multi.one.example. 60 IN TXT multi\""
			echo "  local-data: \"multi.one.example. 60 IN A 192.0.2.33\""
			echo "  local-data: \"multi.one.example. 60 IN MX 10 www.one.example.\""
			echo "  local-data: \"b.one.example. 60 IN AAAA 2001:db8::1\""
			echo "  local-data: \"one.example. 60 IN NS ns.one.example.\""
			echo "  local-data: \"x.z.example. 60 IN A 192.0.2.34\""
			echo "  local-data: \"implicit.other. 60 IN A 192.0.2.35\""
			echo "remote-control:"
			echo "  control-enable: yes"
			echo "  control-interface: $3"
			echo "view:"
			echo "  name: \"v1\""
			echo "  local-zone: \"vz.example.\" static"
			echo "  local-zone: \"resolver.arpa.\" nodefault"
			echo "  local-zone: \"service.arpa.\" nodefault"
			echo "  local-data: \"a.vz.example. 60 IN A 192.0.2.50\""
			echo "  local-data: \"a.vz.example. 60 IN A 192.0.2.51\""
			echo "view:"
			echo "  name: \"v2\""
			echo "view:"
			echo "  name: \"v3\""
			echo "  view-first: yes"
			echo "  local-zone: \"V3.example\" static"
			echo "  local-zone: \"test.\" refuse"
			echo "  local-data: \"a.v3.example. 60 IN A 192.0.2.70\""
			echo "stub-zone:"
			echo "  name: \"stub.example.\""
			echo "  stub-addr: $NSD_IP@$NSD_PORT"
			echo "stub-zone:"
			echo "  name: \"s.example.\""
			echo "  stub-addr: $NSD_IP@$NSD_PORT"
			echo "forward-zone:"
			echo "  name: \"ctl.example.\""
			echo "  forward-addr: $NSD_IP@$NSD_PORT"
			echo "forward-zone:"
			echo "  name: \"b.example.\""
			echo "  forward-addr: $NSD_IP@$NSD_PORT"
			echo "auth-zone:"
			echo "  name: \"auth.example.\""
			echo "  zonefile: \"$W/auth.zone\""
		} > "$1"
	}
	parity_conf "$W/pp.conf" $IP "$W/pp.sock"
	parity_conf "$W/pu.conf" $UB_IP "$W/pu.sock"
	rm -f "$W/pp.sock" "$W/pu.sock"
	"$UB" -d -c "$W/pu.conf" >"$W/pu.out" 2>&1 9>&- &
	it_track $!
	CONF=$W/pp.conf
	UCONF=$CONF
	if start_petrel; then
		for i in $(seq 50); do
			"$UC" -c "$W/pu.conf" status >/dev/null 2>&1 && break
			sleep 0.1
		done
		for cmd in list_local_zones list_local_data list_stubs \
			list_forwards list_auth_zones "view_list_local_zones v1" \
			"view_list_local_data v1" "view_list_local_zones v2" \
			"view_list_local_data v2" "view_list_local_zones v3" \
			"view_list_local_data v3" "view_list_local_zones nosuch" \
			"view_list_local_data nosuch" "lookup WWW.One.Example" \
			"get_option num-threads" "get_option do-ip6" \
			"insecure_add foo.example" list_insecure \
			"insecure_remove foo.example"; do
			# shellcheck disable=SC2086
			"$UC" -c "$W/pu.conf" $cmd >"$W/pu.txt" 2>&1
			urc=$?
			# shellcheck disable=SC2086
			"$UC" -c "$W/pp.conf" $cmd >"$W/pp.txt" 2>&1
			prc=$?
			case $cmd in
			lookup*) sed -i 2,\$d "$W/pu.txt" "$W/pp.txt" ;;
			esac
			if [ $urc = $prc ] && cmp -s "$W/pu.txt" "$W/pp.txt" &&
				{ [ -s "$W/pu.txt" ] || case $cmd in
					view_list*|list_insecure) true ;;
					*) false ;; esac; }; then
				ok "$TAG $cmd: Unbound's bytes"
			else
				bad "$TAG $cmd: rc $urc/$prc, $(diff "$W/pu.txt" "$W/pp.txt" | head -6)"
			fi
		done
		stop_petrel
	fi
else
	echo "unbound-control: no unbound at $UB, the parity checks skipped" >&2
fi

# Debian's munin plugin, as munin-node runs it
if [ -f "$MUNIN" ]; then
	TAG="[munin]"
	CONF=$W/petrel-munin.conf
	write_conf "$CONF" pthreads tls
	UCONF=$CONF
	mkdir -p "$W/munin"
	if start_petrel; then
		qshort www.ctl.example A >/dev/null
		qshort nx.ctl.example A >/dev/null
		for g in hits queue memory by_type by_class by_opcode by_rcode \
			by_flags histogram; do
			ln -sf "$MUNIN" "$W/munin/unbound_munin_$g"
		done
		run_munin() {
			MUNIN_PLUGSTATE=$W/munin unbound_conf=$CONF \
				unbound_control=$UC sh "$W/munin/unbound_munin_$1" $2 2>&1
		}
		OUT=$(run_munin hits config)
		echo "$OUT" | grep -q '^graph_title Unbound DNS traffic' &&
			echo "$OUT" | grep -q '^t0_n_queries.label' &&
			ok "$TAG hits config" || bad "$TAG hits config: $(echo "$OUT" | head -3)"
		OUT=$(run_munin hits)
		echo "$OUT" | grep -Eq '^t_n_queries.value [1-9]' &&
			ok "$TAG hits values" || bad "$TAG hits values: $(echo "$OUT" | head -5)"
		OUT=$(run_munin by_type)
		echo "$OUT" | grep -Eq '^n_q_t_A.value [1-9]' &&
			ok "$TAG by_type values" || bad "$TAG by_type: $(echo "$OUT" | head -3)"
		OUT=$(run_munin by_rcode)
		echo "$OUT" | grep -Eq '^n_a_r_NXDOMAIN.value [1-9]' &&
			ok "$TAG by_rcode values" || bad "$TAG by_rcode: $(echo "$OUT" | head -3)"
		for g in queue memory by_class by_opcode by_flags histogram; do
			OUT=$(run_munin $g config)
			echo "$OUT" | grep -q '^graph_title' ||
				{ bad "$TAG $g config: $(echo "$OUT" | head -2)"; continue; }
			OUT=$(run_munin $g)
			echo "$OUT" | grep -Eq '^[a-zA-Z0-9_]+\.value [0-9.]+$' &&
				! echo "$OUT" | grep -q error &&
				ok "$TAG $g" || bad "$TAG $g values: $(echo "$OUT" | head -3)"
		done
		OUT=$(run_munin memory)
		echo "$OUT" | grep -Eq '^m_c_message.value [1-9]' &&
			ok "$TAG memory values" || bad "$TAG memory: $(echo "$OUT" | head -3)"
		stop_petrel
	fi
else
	echo "unbound-control: no munin plugin at $MUNIN, its checks skipped" >&2
fi

finish
