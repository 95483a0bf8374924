#!/bin/bash
# tests/integration/control.sh - petrel-control against a running petrel.
#
#   bash tests/integration/control.sh [PETREL [PETREL_CONTROL [SETUP]]]
#   (or PETREL=... PETREL_CONTROL=... PETREL_CONTROL_SETUP=... in the env;
#   MODELS="fork" for a build without threads)
#
# An NSD on 127.0.0.1 (a high port) serves ctl.example, other.example and
# stub.example; petrel forwards ctl.example to it. For each thread model
# (pthreads, fork) and each transport (unix socket, TLS with certificates
# from petrel-control-setup) it drives every command of petrel-control and
# checks the answers and their effect on DNS answers; a client with the
# wrong certificate must be refused and the daemon must carry on; bad
# input gets an error line. Then dump_cache / load_cache into a fresh
# daemon (whose upstream is dead) must give the same answers with TTLs
# lowered by the time passed, and drop an entry that expired. The
# Prometheus endpoint's output is parsed.
# Prints "control: N passed, M failed"; exit 0 when nothing failed.
# Stops everything it started (lib.sh's trap).

HERE=$(cd "$(dirname "$0")" && pwd)
PETREL=${1:-${PETREL:-petrel}}
PETREL_CONTROL=${2:-${PETREL_CONTROL:-petrel-control}}
SETUP=${3:-${PETREL_CONTROL_SETUP:-$HERE/../../smallapp/petrel-control-setup}}
. "$HERE/lib.sh"


command -v "$NSD" >/dev/null 2>&1 || NSD=$(command -v nsd)
for t in "$PETREL" "$PETREL_CONTROL" "$SETUP" "$NSD" dig; do
	if ! command -v "$t" >/dev/null 2>&1 && [ ! -x "$t" ]; then
		echo "control: missing $t" >&2
		exit 1
	fi
done

IT_QUIET=1
it_suite control
W=$IT_WORK
# below the ephemeral port range (32768-60999), so no outgoing socket
# of another test takes one of ours
BASE=$((20000 + (RANDOM % 1200) * 10))
NSD_PORT=$BASE
DNS_PORT=$((BASE + 1))
CTL_PORT=$((BASE + 2))
HTTP_PORT=$((BASE + 3))
DEAD_PORT=$((BASE + 4))
ALT_PORT=$((BASE + 5))

cat > "$W/ctl.zone" <<'EOF'
$ORIGIN ctl.example.
$TTL 300
@	IN SOA ns hostmaster 1 3600 600 86400 60
@	IN NS ns
ns	IN A 127.0.0.1
www	IN A 192.0.2.1
mail	IN A 192.0.2.2
txt	IN TXT "hello control"
EOF
cat > "$W/other.zone" <<'EOF'
$ORIGIN other.example.
$TTL 300
@	IN SOA ns hostmaster 1 3600 600 86400 60
@	IN NS ns
ns	IN A 127.0.0.1
www	IN A 192.0.2.11
EOF
cat > "$W/stub.zone" <<'EOF'
$ORIGIN stub.example.
$TTL 300
@	IN SOA ns hostmaster 1 3600 600 86400 60
@	IN NS ns
ns	IN A 127.0.0.1
www	IN A 192.0.2.21
EOF
export NSD_PORT
if ! nsd_start auth 127.0.0.1 ctl.example="$W/ctl.zone" \
	other.example="$W/other.zone" stub.example="$W/stub.zone"; then
	echo "control: 0 passed, 1 failed"
	exit 1
fi

"$SETUP" -d "$W/keys" -b 2048 >/dev/null 2>&1 || bad "petrel-control-setup"
"$SETUP" -d "$W/wrong" -b 2048 >/dev/null 2>&1 || bad "petrel-control-setup (2)"
for f in petrel_server.key petrel_server.pem petrel_control.key petrel_control.pem; do
	[ -s "$W/keys/$f" ] && ok "setup made $f" || bad "setup did not make $f"
done
if openssl verify -CAfile "$W/keys/petrel_server.pem" "$W/keys/petrel_control.pem" >/dev/null 2>&1; then
	ok "control cert is signed by the server cert"
else
	bad "control cert does not verify against the server cert"
fi

# write_conf FILE MODEL TRANSPORT [FORWARD_PORT] [KEYDIR_FOR_CLIENT]
write_conf() {
	local f=$1 model=$2 tr=$3 fport=${4:-$NSD_PORT} ckeys=${5:-$W/keys}
	{
		echo "server:"
		echo "  interface: 127.0.0.1@$DNS_PORT"
		echo "  num-threads: 2"
		echo "  thread-model: $model"
		echo "  so-reuseport: yes"
		echo "  do-daemonize: no"
		echo "  pidfile: \"\""
		echo "  logfile: \"$W/petrel.log\""
		echo "  verbosity: 1"
		echo "  do-not-query-localhost: no"
		echo "  extended-statistics: yes"
		echo "  http-metrics-interface: 127.0.0.1@$HTTP_PORT"
		echo "remote-control:"
		echo "  control-enable: yes"
		if [ "$tr" = unix ]; then
			echo "  control-interface: $W/ctl.sock"
		else
			echo "  control-interface: 127.0.0.1"
			echo "  control-port: $CTL_PORT"
			echo "  control-use-cert: yes"
		fi
		echo "  server-key-file: \"$W/keys/petrel_server.key\""
		echo "  server-cert-file: \"$W/keys/petrel_server.pem\""
		echo "  control-key-file: \"$ckeys/petrel_control.key\""
		echo "  control-cert-file: \"$ckeys/petrel_control.pem\""
		echo "forward-zone:"
		echo "  name: \"ctl.example.\""
		echo "  forward-addr: 127.0.0.1@$fport"
	} > "$f"
}

PID=""
SILENT=""
# start_petrel CONF: start and wait until the control channel answers
start_petrel() {
	"$PETREL" -d -c "$1" >>"$W/petrel.out" 2>&1 &
	PID=$!
	it_track $PID
	for i in $(seq 50); do
		if "$PETREL_CONTROL" -c "$1" status >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	bad "petrel did not start with $1"; tail -5 "$W/petrel.log" "$W/petrel.out" >&2
	return 1
}

# stop_petrel CONF: stop through the control channel; kill if needed
stop_petrel() {
	local out
	out=$("$PETREL_CONTROL" -c "$1" stop 2>&1)
	[ "$out" = ok ] && ok "stop" || bad "stop answered '$out'"
	for i in $(seq 30); do
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$PID" 2>/dev/null; then
		bad "petrel still running 3 s after stop"
		it_kill "$PID"
	else
		ok "petrel exited after stop"
	fi
	wait "$PID" 2>/dev/null
	PID=""
}

CONF=""
# ctl ARGS...: run petrel-control; output in $OUT, status in $RC
ctl() {
	OUT=$("$PETREL_CONTROL" -c "$CONF" "$@" 2>&1)
	RC=$?
}
# expect_ok DESC PATTERN ARGS...: rc 0 and output matches the ERE
expect_ok() {
	local desc=$1 pat=$2
	shift 2
	ctl "$@"
	if [ $RC = 0 ] && echo "$OUT" | grep -Eq -- "$pat"; then
		ok "$TAG $desc"
	else
		bad "$TAG $desc: rc $RC, output: $(echo "$OUT" | head -5)"
	fi
}
# expect_err DESC ARGS...: rc 1 and an "error" line
expect_err() {
	local desc=$1
	shift
	ctl "$@"
	if [ $RC = 1 ] && echo "$OUT" | grep -q error; then
		ok "$TAG $desc"
	else
		bad "$TAG $desc: rc $RC, output: $(echo "$OUT" | head -3)"
	fi
}
q() { dig +time=2 +tries=1 @127.0.0.1 -p $DNS_PORT "$@" 2>/dev/null; }
qshort() { q +short "$@"; }
# every one of 8 separate clients (spread over the workers) sees it
all_see() {
	local want=$1 i got
	shift
	for i in 1 2 3 4 5 6 7 8; do
		got=$(qshort "$@")
		[ "$got" = "$want" ] || { echo "$got"; return 1; }
	done
	return 0
}
# stat NAME: a value from stats_noreset
stat() { "$PETREL_CONTROL" -c "$CONF" stats_noreset 2>/dev/null | sed -n "s/^$1=//p"; }

# parse_metrics: the Prometheus text on stdin is well-formed
parse_metrics() {
	awk '
	/^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* / { if ($2 == "TYPE") fam = $3; next }
	/^#/ { print "bad comment: " $0; bad = 1; next }
	{
		if ($0 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"]*")*\})? ([-+]?[0-9.]+([eE][-+]?[0-9]+)?|\+Inf|NaN)$/) {
			print "bad sample: " $0; bad = 1; next
		}
		if (index($0, fam) != 1) { print "outside family " fam ": " $0; bad = 1 }
		n++
	}
	END { if (n < 20) { print "only " n " samples"; bad = 1 } exit bad }'
}

run_commands() {
	local model=$1 tr=$2 n v t
	TAG="[$model/$tr]"
	# traffic first
	for n in www mail txt nx; do q $n.ctl.example >/dev/null; done
	[ "$(qshort www.ctl.example)" = 192.0.2.1 ] && ok "$TAG resolves through the forward" \
		|| bad "$TAG no answer for www.ctl.example"
	for i in 1 2 3 4 5 6; do q www.ctl.example >/dev/null; q AAAA mail.ctl.example >/dev/null; done

	expect_ok status "petrel \(pid [0-9]+\) is running" status
	if [ "$tr" = unix ]; then
		[ "$(command stat -c %a "$W/ctl.sock")" = 660 ] && ok "$TAG socket mode 0660" \
			|| bad "$TAG socket mode $(command stat -c %a "$W/ctl.sock")"
		v=$("$PETREL_CONTROL" -c "$CONF" -s "$W/ctl.sock" status 2>&1) && echo "$v" | grep -q running \
			&& ok "$TAG -s path" || bad "$TAG -s path: $v"
	else
		v=$("$PETREL_CONTROL" -c "$CONF" -s "127.0.0.1@$CTL_PORT" status 2>&1) && echo "$v" | grep -q running \
			&& ok "$TAG -s addr@port" || bad "$TAG -s addr@port: $v"
	fi
	expect_ok "status shows the model" "thread-model: $model" status
	expect_ok stats_noreset "^total\.num\.queries=[1-9]" stats_noreset
	v=$(stat total.num.queries)
	t=$(( $(stat thread0.num.queries) + $(stat thread1.num.queries) ))
	[ "$v" = "$t" ] && ok "$TAG total is the sum of the threads ($v)" || bad "$TAG total $v != sum $t"
	expect_ok "stats has Unbound's names" "^total\.num\.cachehits=[1-9]" stats_noreset
	for n in total.num.cachemiss total.num.prefetch total.num.expired \
		total.num.recursivereplies total.requestlist.avg total.requestlist.max \
		total.requestlist.overwritten total.requestlist.exceeded \
		total.requestlist.current.all total.recursion.time.avg \
		total.recursion.time.median time.now time.up time.elapsed \
		mem.cache.rrset mem.cache.message mem.mod.iterator mem.mod.validator \
		mem.streamwait mem.http.query_buffer mem.http.response_buffer \
		num.query.proxy_errors num.query.type.A num.query.type.AAAA \
		num.query.class.IN num.query.opcode.QUERY num.query.tcp num.query.ipv6 \
		num.query.flags.RD num.query.edns.present num.answer.rcode.NOERROR \
		num.answer.rcode.NXDOMAIN num.answer.rcode.nodata \
		histogram.000000.000000.to.000000.000001; do
		echo "$OUT" | grep -q "^$n=" || bad "$TAG stats lacks $n"
	done
	ok "$TAG stats names checked"
	[ "$(stat thread0.num.queries)" -gt 0 ] && [ "$(stat thread1.num.queries)" -gt 0 ] \
		&& ok "$TAG both workers served queries" || bad "$TAG a worker served no query"
	[ "$(stat num.query.type.AAAA)" -ge 6 ] && ok "$TAG per-type counter" || bad "$TAG num.query.type.AAAA"
	[ "$(stat mem.cache.message)" -gt 0 ] && ok "$TAG mem.cache.message" || bad "$TAG mem.cache.message is 0"
	# the modules' memory: each process's with fork, summed
	[ "$(stat mem.mod.validator)" -gt 0 ] && [ "$(stat mem.mod.iterator)" -gt 0 ] &&
		ok "$TAG mem.mod.validator $(stat mem.mod.validator), mem.mod.iterator $(stat mem.mod.iterator)" ||
		bad "$TAG mem.mod.validator '$(stat mem.mod.validator)', mem.mod.iterator '$(stat mem.mod.iterator)'"
	# Prometheus
	if curl -s -m 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$W/metrics.txt" &&
		msg=$(parse_metrics < "$W/metrics.txt"); then
		ok "$TAG /metrics parses"
	else
		bad "$TAG /metrics does not parse: $msg"
	fi
	v=$(awk '/^petrel_queries_total\{/ { s += $2 } END { print s+0 }' "$W/metrics.txt")
	[ "$v" -gt 0 ] && ok "$TAG petrel_queries_total ($v)" || bad "$TAG petrel_queries_total $v"
	grep -q '^petrel_recursion_time_seconds_bucket{le="+Inf"} [1-9]' "$W/metrics.txt" \
		&& ok "$TAG latency histogram" || bad "$TAG latency histogram empty"
	curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/nope" | grep -q 404 \
		&& ok "$TAG /nope is 404" || bad "$TAG /nope is not 404"
	# stats resets, stats_noreset does not
	expect_ok stats "^total\.num\.queries=[1-9]" stats
	v=$(stat total.num.queries)
	[ "${v:-x}" -le 2 ] 2>/dev/null && ok "$TAG stats reset the counters" || bad "$TAG after stats: total.num.queries=$v"

	q www.ctl.example >/dev/null
	expect_ok flush_stats "^ok$" flush_stats
	v=$(stat total.num.queries)
	[ "${v:-x}" = 0 ] && ok "$TAG flush_stats zeroed the counters" || bad "$TAG after flush_stats: total.num.queries=$v"
	# the resets did not lower the Prometheus counters (they count
	# since start: what was there before, and the query since)
	pv=$(curl -s -m 5 "http://127.0.0.1:$HTTP_PORT/metrics" |
		awk '/^petrel_queries_total\{/ { s += $2 } END { print s+0 }')
	pold=$(awk '/^petrel_queries_total\{/ { s += $2 } END { print s+0 }' "$W/metrics.txt")
	[ "${pv:-0}" -gt "${pold:-0}" ] && ok "$TAG petrel_queries_total monotonic ($pold, then $pv)" \
		|| bad "$TAG petrel_queries_total went from $pold to $pv over stats and flush_stats"
	expect_ok "verbosity 2" "^ok$" verbosity 2
	expect_ok "verbosity 1" "^ok$" verbosity 1
	expect_ok log_reopen "^ok$" log_reopen
	expect_ok lookup "^forwarding request:" lookup www.ctl.example
	# Unbound's lines: the summary of the forward zone's servers, then
	# one line per server with what the infra cache knows of it
	echo "$OUT" | grep -q "^It provides 1 IP addresses\.$" &&
		echo "$OUT" | grep -Eq "^127\.0\.0\.1@$NSD_PORT +	rto [0-9]+ msec, ttl [0-9]+, ping [0-9]+ var [0-9]+ rtt [0-9]+, tA [0-9]+, tAAAA [0-9]+, tother [0-9]+, (EDNS 0 (probed|assumed)|noEDNS probed)\.$" &&
		ok "$TAG lookup: Unbound's delegation and server lines" ||
		bad "$TAG lookup: $(echo "$OUT" | tail -4)"
	# the forwarder answered queries with EDNS: known to do EDNS, as
	# Unbound's dump_infra says (ednsknown was 0 for every server)
	ctl dump_infra
	echo "$OUT" | grep -Eq "^127\.0\.0\.1@$NSD_PORT \. ttl [0-9]+ .* ednsknown 1 edns 0 " &&
		ok "$TAG dump_infra: the forwarder is known to do EDNS (ednsknown 1 edns 0)" ||
		bad "$TAG dump_infra: $(echo "$OUT" | grep "@$NSD_PORT" | head -2)"
	ctl cache_lookup www.ctl.example
	echo "$OUT" | grep -q "^msg www.ctl.example. IN A" && ok "$TAG cache_lookup shows the cached answer" \
		|| bad "$TAG cache_lookup: $(echo "$OUT" | tail -3)"
	expect_ok dump_requestlist "thread #1" dump_requestlist
	expect_ok flush_requestlist "^ok" flush_requestlist
	expect_ok dump_cache "^EOF$" dump_cache
	echo "$OUT" | grep -q '^msg ' && ok "$TAG dump has messages" || bad "$TAG dump has no message"
	echo "$OUT" | grep -q '^;rrset ' && ok "$TAG dump has RRsets" || bad "$TAG dump has no RRset"
	echo "$OUT" > "$W/dump-$model-$tr.txt"
	expect_ok flush "^ok removed [0-9]+ rrsets, [1-9][0-9]* messages" flush www.ctl.example
	ctl cache_lookup www.ctl.example
	echo "$OUT" | grep -q "^msg " && bad "$TAG www still cached after flush" || ok "$TAG flush removed it"
	expect_ok load_cache "^ok loaded [1-9]" load_cache < "$W/dump-$model-$tr.txt"
	ctl cache_lookup www.ctl.example
	echo "$OUT" | grep -q "^msg www" && ok "$TAG load_cache brought it back" || bad "$TAG not back after load_cache"
	expect_ok flush_type "^ok removed" flush_type mail.ctl.example A
	expect_ok flush_negative "^ok removed [0-9]+ rrsets, [1-9]" flush_negative
	expect_ok flush_zone "^ok removed" flush_zone ctl.example
	ctl dump_cache
	echo "$OUT" | grep -q '^msg ' && bad "$TAG flush_zone left messages" || ok "$TAG flush_zone emptied the zone"
	expect_ok flush_bogus "^ok removed" flush_bogus
	expect_ok "flush_infra all" "^ok removed" flush_infra all
	expect_ok "flush_infra IP" "^ok removed" flush_infra 127.0.0.1
	# config-changing commands
	expect_ok list_forwards "^ctl\.example\. IN forward 127\.0\.0\.1@$NSD_PORT" list_forwards
	expect_ok forward_add "^ok$" forward_add other.example 127.0.0.1@$NSD_PORT
	expect_ok "list_forwards shows it" "^other\.example\. IN forward" list_forwards
	all_see 192.0.2.11 www.other.example >/dev/null && ok "$TAG every worker uses the added forward" \
		|| bad "$TAG forward_add not seen by every worker"
	expect_ok forward_remove "^ok$" forward_remove other.example
	ctl list_forwards
	echo "$OUT" | grep -q other.example && bad "$TAG forward_remove left it" || ok "$TAG forward removed"
	expect_err "forward_remove of an unknown zone" forward_remove nothere.example
	expect_ok stub_add "^ok$" stub_add stub.example 127.0.0.1@$NSD_PORT
	expect_ok list_stubs "^stub\.example\. IN stub 127\.0\.0\.1@$NSD_PORT" list_stubs
	all_see 192.0.2.21 www.stub.example >/dev/null && ok "$TAG every worker uses the added stub" \
		|| bad "$TAG stub_add not seen by every worker"
	expect_ok stub_remove "^ok$" stub_remove stub.example
	ctl list_stubs
	[ -z "$OUT" ] && ok "$TAG stub removed" || bad "$TAG list_stubs after remove: $OUT"
	expect_ok local_zone "^ok$" local_zone blocked.example static
	expect_ok local_data "^ok$" local_data "x.blocked.example. 300 IN A 10.9.9.9"
	expect_ok list_local_zones "^blocked\.example\. static" list_local_zones
	expect_ok list_local_data "^x\.blocked\.example\.	300	IN	A	10\.9\.9\.9$" list_local_data
	# the defaults too, as Unbound lists them
	expect_ok "list_local_zones: the defaults" "^localhost\. redirect$" list_local_zones
	expect_ok "list_local_data: the defaults" "^localhost\.	10800	IN	A	127\.0\.0\.1$" list_local_data
	all_see 10.9.9.9 x.blocked.example >/dev/null && ok "$TAG every worker answers the local data" \
		|| bad "$TAG local_data not seen by every worker"
	expect_ok "local_data TXT" "^ok$" local_data 'x.blocked.example. TXT "hi there"'
	all_see '"hi there"' TXT x.blocked.example >/dev/null && ok "$TAG TXT local data with quotes" \
		|| bad "$TAG TXT local data: $(qshort TXT x.blocked.example)"
	expect_ok local_data_remove "^ok$" local_data_remove x.blocked.example
	q x.blocked.example | grep -q 'status: NXDOMAIN' && ok "$TAG local data removed (static zone: NXDOMAIN)" \
		|| bad "$TAG after local_data_remove: $(qshort x.blocked.example)"
	expect_ok local_zone_remove "^ok$" local_zone_remove blocked.example
	ctl list_local_zones
	echo "$OUT" | grep -q blocked.example && bad "$TAG local_zone_remove left it" || ok "$TAG local zone removed"
	expect_ok get_option "^86400$" get_option cache-max-ttl
	expect_ok set_option "^ok$" set_option cache-max-ttl: 100
	expect_ok "get_option after set_option" "^100$" get_option cache-max-ttl
	ctl flush www.ctl.example
	for i in 1 2 3 4 5 6; do q www.ctl.example >/dev/null; done
	ctl cache_lookup www.ctl.example
	t=$(echo "$OUT" | awk '/^msg www/ { print $6 }' | sort -n | tail -1)
	[ -n "$t" ] && [ "$t" -le 100 ] && ok "$TAG cache-max-ttl: 100 applies (cached TTL $t)" \
		|| bad "$TAG cached TTL '$t' after set_option cache-max-ttl: 100"
	# bad input: an error line, and the daemon carries on
	expect_err "unknown command" no_such_command
	expect_err "verbosity without a number" verbosity loud
	expect_err "flush with a bad name" flush "a..b"
	expect_err "flush_type with a bad type" flush_type www.ctl.example NOTATYPE
	expect_err "flush_infra with a bad address" flush_infra 300.1.1.1
	expect_err "local_zone without a type" local_zone only.example
	expect_err "local_data that does not parse" local_data "bad.example. IN A not-an-address"
	expect_err "set_option of an unknown option" set_option no-such-option: 1
	expect_err "set_option that needs a restart" set_option port: 5353
	expect_err "get_option of an unknown option" get_option no-such-option
	expect_err "load_cache of garbage" load_cache <<< "msg 1 2 3
EOF"
	if [ "$tr" = unix ] && command -v python3 >/dev/null; then
		v=$(python3 -c '
import socket,sys
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"HELLO there\n")
print(s.recv(200).decode())' "$W/ctl.sock" 2>&1)
		echo "$v" | grep -q "^error unknown protocol" && ok "$TAG a wrong protocol line gets an error" \
			|| bad "$TAG wrong protocol line: $v"
		# a client that connects and says nothing: DNS goes on, and
		# the control server is back after its timeout
		python3 -c '
import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(5)' "$W/ctl.sock" &
		v=$!
		sleep 0.3
		[ "$(qshort mail.ctl.example)" = 192.0.2.2 ] && ok "$TAG DNS answers while a control client hangs" \
			|| bad "$TAG no DNS answer while a control client hangs"
		expect_ok "control answers after a silent client" "is running" status
		wait $v
	fi
	if [ "$tr" = tls ]; then
		write_conf "$W/wrong.conf" "$model" tls "$NSD_PORT" "$W/wrong"
		v=$("$PETREL_CONTROL" -c "$W/wrong.conf" status 2>&1)
		if [ $? = 1 ] && echo "$v" | grep -qi "error"; then
			ok "$TAG a client with the wrong certificate is refused"
		else
			bad "$TAG wrong certificate: $v"
		fi
		grep -q "TLS handshake refused" "$W/petrel.log" && ok "$TAG the refusal is logged" \
			|| bad "$TAG no log line for the refused certificate"
	fi
	expect_ok "still answering after bad input" "is running" status
	[ "$(qshort mail.ctl.example)" = 192.0.2.2 ] && ok "$TAG still resolving" || bad "$TAG not resolving any more"
	if [ "$model" = fork ]; then
		# a worker that dies is restarted; the commands reach the new one
		v=$(children_of "$PID" | head -1)
		[ -n "$v" ] && kill -9 "$v"
		for i in $(seq 30); do
			sleep 0.1
			[ "$(children_of "$PID" | wc -l)" = 2 ] && ! kill -0 "$v" 2>/dev/null && break
		done
		sleep 0.3
		expect_ok "stats after a worker was killed and restarted" "^thread1\.num\.queries=" stats_noreset
		expect_ok "local_zone reaches the restarted worker" "^ok$" local_zone k.example always_nxdomain
		n=0
		for i in 1 2 3 4 5 6 7 8; do
			q k.example | grep -q 'status: NXDOMAIN' && n=$((n + 1))
		done
		[ $n = 8 ] && ok "$TAG every worker, the restarted one too, took the change" \
			|| bad "$TAG only $n of 8 answers were NXDOMAIN after local_zone"
	fi
	# reloads (the file is read again: runtime changes are gone)
	q www.ctl.example >/dev/null
	expect_ok reload_keep_cache "^ok$" reload_keep_cache
	expect_ok "get_option after reload" "^86400$" get_option cache-max-ttl
	ctl cache_lookup www.ctl.example
	echo "$OUT" | grep -q "^msg www" && ok "$TAG reload_keep_cache kept the cache" || bad "$TAG cache lost on reload_keep_cache"
	expect_ok reload "^ok$" reload
	ctl cache_lookup www.ctl.example
	echo "$OUT" | grep -q "^msg www" && bad "$TAG reload kept the cache" || ok "$TAG reload emptied the cache"
	[ "$(qshort www.ctl.example)" = 192.0.2.1 ] && ok "$TAG resolving after reload" || bad "$TAG not resolving after reload"
	# a reload that moves the listening point (another port): the
	# workers stop and start again on the new socket. The reload and
	# the command after it answer at once (with fork, the workers
	# started during the reload held the control connection open, and
	# petrel-control waited for its 60 s timeout); 10 s is far from the
	# usual 0.1 s, so only that fault fails it
	sed -i "s/^  interface: 127\.0\.0\.1@$DNS_PORT\$/  interface: 127.0.0.1@$ALT_PORT/" "$CONF"
	t=$(date +%s)
	v=$(timeout 10 "$PETREL_CONTROL" -c "$CONF" reload 2>&1)
	n=$?
	[ $n = 0 ] && [ "$v" = ok ] && ok "$TAG reload to another port answers at once" ||
		bad "$TAG reload to another port: rc $n after $(( $(date +%s) - t )) s: $v"
	t=$(date +%s)
	v=$(timeout 10 "$PETREL_CONTROL" -c "$CONF" status 2>&1)
	n=$?
	[ $n = 0 ] && echo "$v" | grep -q "is running" && ok "$TAG status after it answers at once" ||
		bad "$TAG status after the reload to another port: rc $n after $(( $(date +%s) - t )) s: $v"
	v=""
	for i in $(seq 30); do
		v=$(dig +short +time=2 +tries=1 @127.0.0.1 -p $ALT_PORT www.ctl.example 2>/dev/null)
		[ "$v" = 192.0.2.1 ] && break
		sleep 0.1
	done
	[ "$v" = 192.0.2.1 ] && ok "$TAG answers on the new port" || bad "$TAG no answer on port $ALT_PORT: '$v'"
	sed -i "s/^  interface: 127\.0\.0\.1@$ALT_PORT\$/  interface: 127.0.0.1@$DNS_PORT/" "$CONF"
	v=$(timeout 10 "$PETREL_CONTROL" -c "$CONF" reload 2>&1)
	[ "$v" = ok ] && ok "$TAG reload back to port $DNS_PORT" || bad "$TAG reload back: $v"
}

for model in ${MODELS:-pthreads fork}; do
	for tr in unix tls; do
		CONF="$W/petrel-$model-$tr.conf"
		write_conf "$CONF" "$model" "$tr"
		: > "$W/petrel.log"
		if start_petrel "$CONF"; then
			run_commands "$model" "$tr"
			stop_petrel "$CONF"
		fi
	done
done

# dump_cache, then load_cache into a fresh daemon whose upstream is dead
for model in ${MODELS:-pthreads fork}; do
	TAG="[dump/load $model]"
	CONF="$W/dl-$model.conf"
	write_conf "$CONF" "$model" unix
	start_petrel "$CONF" || continue
	for n in www mail txt; do for i in 1 2 3 4; do q $n.ctl.example >/dev/null; done; done
	for i in 1 2 3 4; do q TXT txt.ctl.example >/dev/null; done
	ORIG_WWW=$(q +noall +answer www.ctl.example | awk '{ print $2, $5 }')
	T0=$(date +%s)
	ORIG_TTL=${ORIG_WWW%% *}
	ctl dump_cache
	echo "$OUT" > "$W/dl.txt"
	stop_petrel "$CONF"
	# Unbound's format: TTLs as they were at the dump. The mail entries
	# expired (TTL 0): they must be dropped on load; every other entry
	# claims to be secure (security 5) and authoritative (trust 8)
	awk '$1 == ";rrset" { held = $0; next }
		held != "" { split(held, f, " ")
			if ($1 == "mail.ctl.example.") f[2] = 0
			print f[1], f[2], f[3], f[4], 8, 5; held = "" }
		$1 == "msg" && $2 == "mail.ctl.example." { $7 = 0 }
		$1 == "msg" { $8 = 5 }
		$1 == "mail.ctl.example." && NF > 4 { $2 = 0 }
		{ print }' "$W/dl.txt" > "$W/dl-old.txt"
	FILE_TTL=$(awk '$1 == "www.ctl.example." && $4 == "A" { print $2; exit }' "$W/dl.txt")
	sleep 2
	# the new upstream takes queries and never answers
	if [ -z "$SILENT" ] && command -v python3 >/dev/null; then
		python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
end = time.time() + 100
while time.time() < end:
    s.settimeout(1)
    try: s.recvfrom(4096)
    except Exception: pass' "$DEAD_PORT" &
		SILENT=$!
		it_track $SILENT
	fi
	write_conf "$CONF" "$model" unix "$DEAD_PORT"
	start_petrel "$CONF" || continue
	expect_ok load_cache "^ok loaded [1-9][0-9]* entries, [1-9]" load_cache < "$W/dl-old.txt"
	T1=$(date +%s)
	good=1
	for i in 1 2 3 4 5 6; do
		a=$(q +noall +answer www.ctl.example | awk '{ print $2, $5 }')
		T2=$(date +%s)
		set -- $a
		# same address; the TTL the dump wrote (remaining then, as in
		# Unbound's format), lowered by the time passed since the load
		# (T1) until this answer came (T2), +-1 for whole seconds; at
		# most the TTL first seen
		el=$((T2 - T1))
		if [ "$2" != 192.0.2.1 ] || [ -z "$FILE_TTL" ] || [ "$1" -gt "$FILE_TTL" ] ||
			[ "$1" -gt "$ORIG_TTL" ] || [ "$1" -lt $((FILE_TTL - el - 1)) ]; then
			good=0
			bad "$TAG www after load: '$a' (before: '$ORIG_WWW', dumped with TTL $FILE_TTL, ${el}s since the load)"
			break
		fi
	done
	[ $good = 1 ] && ok "$TAG same answer, the dumped TTL lowered by the time passed ($a, dumped $FILE_TTL)"
	[ "$(qshort TXT txt.ctl.example)" = '"hello control"' ] && ok "$TAG TXT answer from the loaded cache" \
		|| bad "$TAG TXT: $(qshort TXT txt.ctl.example)"
	q mail.ctl.example | grep -q 'status: NOERROR.*' && [ -n "$(qshort mail.ctl.example)" ] \
		&& bad "$TAG the expired mail entry was loaded" || ok "$TAG the expired entry was dropped"
	# the file claimed every entry secure: loaded, they keep that
	# status, as Unbound's load_cache keeps it (the dump comes from the
	# operator over the authenticated control channel; issue 31,
	# defect 6, doc/petrel-control.8)
	ctl dump_cache
	if [ $RC = 0 ] && echo "$OUT" | grep -q '^msg ' && ! echo "$OUT" |
		awk '($1 == "msg" && $8 != 5) || ($1 == ";rrset" && $6 != 5) { bad = 1 } END { exit !bad }'; then
		ok "$TAG a loaded entry keeps its security status"
	else
		bad "$TAG loaded entries kept the file's security: $(echo "$OUT" | head -3 | cut -c1-60)"
	fi
	if [ -n "$SILENT" ]; then
		# queries stuck on the silent upstream: listed, then dropped.
		# The queries before timed out on it, so it is known as down
		# (its clients would get SERVFAIL at once, issue 17): forget
		# that first, so that these wait for it
		ctl flush_infra all
		DIGS=""
		# four over UDP, two over TCP (each TCP connection open and
		# owed an answer until then); the clients of the queries
		# before (stuck on the silent upstream) go first, so that
		# only these are waiting
		ctl flush_requestlist
		for i in 1 2 3 4 5 6; do
			tcp=""
			[ $i -gt 4 ] && tcp=+tcp
			q +time=4 $tcp nope$i.ctl.example > "$W/nope$i.out" &
			DIGS="$DIGS $!"
		done
		for i in $(seq 20); do
			sleep 0.1
			ctl dump_requestlist
			n=$(echo "$OUT" | grep -c 'nope[0-9].ctl.example')
			[ "$n" -ge 6 ] && break
		done
		[ "$n" -ge 6 ] && ok "$TAG dump_requestlist shows the $n waiting queries" \
			|| bad "$TAG dump_requestlist: $OUT"
		# Unbound's row: number, type, class, name, the seconds the
		# client waited (six decimals), the module's status
		row=$(echo "$OUT" | grep 'nope1\.ctl\.example' | head -1)
		echo "$row" | grep -Eq '^ *[0-9]+ +A IN nope1\.ctl\.example\. [0-9]+\.[0-9]{6} [a-z0-9]+ (is module_[a-z_]+|wants( [A-Z0-9]+ IN [^ ]+)+)$' &&
			ok "$TAG dump_requestlist row in Unbound's format: $row" ||
			bad "$TAG dump_requestlist row not in Unbound's format: '$row'"
		# the statistics of the waiting: six resolutions with a
		# client each, two TCP connections in use
		ST=$("$PETREL_CONTROL" -c "$CONF" stats_noreset 2>&1)
		sv() { echo "$ST" | sed -n "s/^$1=//p"; }
		[ "$(sv total.requestlist.current.user)" = 6 ] &&
			[ "$(sv total.requestlist.current.replies)" = 6 ] &&
			[ "$(sv total.tcpusage)" = 2 ] &&
			ok "$TAG requestlist.current.user/replies and tcpusage count them" ||
			bad "$TAG waiting: user $(sv total.requestlist.current.user) replies $(sv total.requestlist.current.replies) tcpusage $(sv total.tcpusage)"
		expect_ok "flush_requestlist drops them" "^ok removed [1-9]" flush_requestlist
		wait $DIGS 2>/dev/null
		n=$(cat "$W"/nope?.out | grep -c 'status: SERVFAIL')
		[ "$n" = 6 ] && ok "$TAG their clients got SERVFAIL at once" || bad "$TAG after flush_requestlist: $n SERVFAILs"
		for i in $(seq 30); do
			ST=$("$PETREL_CONTROL" -c "$CONF" stats_noreset 2>&1)
			[ "$(sv total.tcpusage)" = 0 ] && break
			sleep 0.1
		done
		[ "$(sv total.requestlist.current.replies)" = 0 ] && [ "$(sv total.tcpusage)" = 0 ] &&
			ok "$TAG answered and closed: replies and tcpusage back to 0" ||
			bad "$TAG after the answers: replies $(sv total.requestlist.current.replies) tcpusage $(sv total.tcpusage)"
		ctl dump_requestlist
		echo "$OUT" | grep -q 'nope' && bad "$TAG requestlist not empty: $OUT" || ok "$TAG requestlist empty"
	fi
	stop_petrel "$CONF"
done

# sock-queue-timeout: queries that waited in the socket while petrel
# was stopped (SIGSTOP) are dropped unread when it runs again, counted in
# num.queries_timed_out, their wait in query.queue_time_us.max; a fresh
# query is answered
TAG="[sock-queue-timeout]"
CONF="$W/sqt.conf"
write_conf "$CONF" pthreads unix
sed -i 's/^server:$/server:\n  sock-queue-timeout: 1/' "$CONF"
if start_petrel "$CONF"; then
	q www.ctl.example >/dev/null
	kill -STOP "$PID"
	DIGS=""
	for i in 1 2 3; do
		dig +time=9 +tries=1 @127.0.0.1 -p $DNS_PORT www.ctl.example \
			> "$W/sqt$i.out" 2>&1 &
		DIGS="$DIGS $!"
	done
	sleep 2.5
	kill -CONT "$PID"
	[ -n "$(qshort www.ctl.example)" ] && ok "$TAG a fresh query is answered" ||
		bad "$TAG a fresh query was not answered"
	to=$(stat total.num.queries_timed_out)
	mx=$(stat total.query.queue_time_us.max)
	[ "$to" = 3 ] && [ "${mx:-0}" -ge 2000000 ] && [ "${mx:-0}" -lt 60000000 ] &&
		ok "$TAG the 3 stale queries dropped and counted (waited ${mx} us)" ||
		bad "$TAG num.queries_timed_out '$to', query.queue_time_us.max '$mx'"
	n=$(cat "$W"/sqt?.out | grep -c 'status: NOERROR')
	[ "$n" = 0 ] && ok "$TAG the stale queries got no answer" ||
		bad "$TAG $n stale queries were answered"
	kill $DIGS 2>/dev/null
	wait $DIGS 2>/dev/null
	# stats resets it, as Unbound's
	ctl stats
	[ "$(stat total.query.queue_time_us.max)" -lt 2000000 ] &&
		[ "$(stat total.num.queries_timed_out)" = 0 ] &&
		ok "$TAG stats resets them" ||
		bad "$TAG after stats: $(stat total.num.queries_timed_out) $(stat total.query.queue_time_us.max)"
	stop_petrel "$CONF"
fi

finish
