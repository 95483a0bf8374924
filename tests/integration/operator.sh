#!/usr/bin/env bash
# tests/integration/operator.sh - what an operator replacing Unbound trips
# on (issue 31), checked against a running petrel (`make check-operator`).
#
# usage: tests/integration/operator.sh [-k]
#   -k  keep the work directory (configs, logs)
# environment: PETREL=path, PETREL_CONTROL=path, PETREL_CHECKCONF=path;
#   MODELS="fork" for a build without threads
#
# Addresses: petrel on 127.0.210.1 ports 62100-62105 and 62108 (Unbound:
# 62106), the PROXY client on 127.0.210.3; no upstream is
# needed for 1-5 (the names asked are local-data); 6 runs NSD on
# 127.0.210.11-13 port 53.
#
# 1. Statistics survive runtime changes (threads and forked workers):
#    after queries, local_data,
#    forward_add, set_option, reload_keep_cache, reload and SIGHUP each
#    leave total.num.queries (read with stats_noreset) and the Prometheus
#    counter where they were; only `stats` resets the control counters,
#    and the Prometheus counter still never goes down. The log line of
#    the metrics endpoint is a URL that answers.
# 2. status prints the module stack of module-config, as Unbound's;
#    stats prints each module's memory (mem.mod.NAME, the module below
#    first), mem.streamwait and mem.http.* after mem.cache.*, as
#    Unbound's; a bad PROXY v2 header on a proxy-protocol-port (62108)
#    is counted in num.query.proxy_errors and petrel_proxy_errors_total.
# 3. A fatal start-up error says error:, that petrel stops, and what to
#    do: a port another process holds; username: as a user who is not
#    root (as root: run through setpriv as nobody).
# 4. systemd: petrel -p writes no pidfile; make install (DESTDIR) installs
#    the unit with the paths of the installed binaries; systemd-analyze
#    verify passes; its ExecStartPre steps (petrel-anchor, checkconf) and
#    ExecStart run as systemd would run them, and petrel answers.
# 5. petrel-checkconf makes the start-up checks: a missing
#    auto-trust-anchor-file or trusted-keys-file fails both.
# 6. The flushes reach the validator's key cache as Unbound's do: a
#    signed root and zones on NSD (127.0.210.11-13, port 53; as root):
#    flush_zone and flush_type NAME DNSKEY remove the zone's key entries
#    and the next query validates the keys again; flush_negative and
#    flush_bogus remove the bad entry a bogus zone left. num.answer.secure
#    counts the secure replies to clients (from the cache too; not the
#    validations behind them), num.prefetch stays 0 with prefetch: no.
#    dump_cache writes the validated sets with their RRSIGs, secure and
#    validated; the dump loads with its status into a fresh petrel and
#    into the real Unbound (port 62106), which answer with AD from it.
# Takes /tmp/petrel-integration.lock, runs about 10 s, stops everything it
# started on exit (lib.sh). Exit 0 when every check passed, 1 otherwise,
# 77 when a tool is missing.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

while [ $# -gt 0 ]; do
	case "$1" in
	-k) IT_KEEP=1 ;;
	*) echo "usage: $0 [-k]" >&2; exit 2 ;;
	esac
	shift
done

IP=127.0.210.1
PORT=62100
HTTP_PORT=62102

for tool in dig curl timeout python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "operator: SKIP: $tool not found (apt-get install bind9-dnsutils curl python3)"
		exit 77
	fi
done
it_suite operator
: "${PETREL_CHECKCONF:=$(dirname "$PETREL")/smallapp/petrel-checkconf}"

# loopback root hints (nothing answers there): no query leaves loopback
cat > "$IT_WORK/root.hints" <<HINTS
.			3600000	NS	a.root.zz.
a.root.zz.		3600000	A	127.0.210.2
HINTS
chmod 644 "$IT_WORK/root.hints"

# write_conf NAME EXTRA: a config with local data and a control socket
write_conf() {
	cat > "$IT_WORK/$1.conf" <<CONF
server:
  root-hints: "$IT_WORK/root.hints"
  interface: $IP
  port: $PORT
  do-ip6: no
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "$IT_WORK"
  pidfile: "$IT_WORK/$1.pid"
  logfile: ""
  use-syslog: no
  verbosity: 1
  access-control: 127.0.210.0/24 allow
  http-metrics-interface: $IP@$HTTP_PORT
  local-zone: "op.zz." static
  local-data: "a.op.zz. A 192.0.2.1"
$2
remote-control:
  control-enable: yes
  control-interface: "$IT_WORK/$1.sock"
  control-use-cert: no
forward-zone:
  name: "fw.zz."
  forward-addr: 127.0.210.2@62109
CONF
}

PID=""
# start_petrel NAME: start and wait until it answers
start_petrel() {
	local i
	"$PETREL" -d -c "$IT_WORK/$1.conf" > "$IT_WORK/$1.log" 2>&1 &
	PID=$!
	it_track "$PID"
	it_track_pidfile "$IT_WORK/$1.pid"
	for i in $(seq 100); do
		kill -0 "$PID" 2>/dev/null || break
		if q a.op.zz. A >/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	tail -20 "$IT_WORK/$1.log"
	return 1
}
q() { timeout 10 dig +time=2 +tries=1 -p "$PORT" @"$IP" "$@" 2>&1 | grep -q 'status: NOERROR'; }
ctl() { "$PETREL_CONTROL" -c "$CONF" "$@" 2>&1; }
# queries: total.num.queries without a reset
queries() { ctl stats_noreset | sed -n 's/^total\.num\.queries=//p'; }
# metric: the Prometheus counter of queries
metric() { curl -s -m 5 "http://$IP:$HTTP_PORT/metrics" | awk '/^petrel_queries_total[{ ]/ { s += $2; n++ } END { if (n) print s }'; }
# ask N: N queries for local data
ask() { local i; for i in $(seq "$1"); do q a.op.zz. A; done; }

# ------------------------------------------- 1. counters over changes
# stats_over_changes MODEL: the sequence on 2 workers of MODEL
stats_over_changes() {
	local M=$1 n m out
	write_conf "stats-$M" "  num-threads: 2
  thread-model: $M"
	CONF=$IT_WORK/stats-$M.conf
	start_petrel "stats-$M" || { fail "$M: petrel did not start"; return; }
	# the metrics line is a URL that works (it said 127.0.0.1@9167)
	if grep -q "metrics on http://$IP:$HTTP_PORT/metrics\$" "$IT_WORK/stats-$M.log" &&
		curl -sf -m 5 "$(sed -n 's/.*metrics on \(http:[^ ]*\)$/\1/p' "$IT_WORK/stats-$M.log")" | grep -q '^petrel_'; then
		ok "$M: the log names the metrics as http://$IP:$HTTP_PORT/metrics, which answers"
	else
		fail "$M: the metrics line: $(grep 'metrics on' "$IT_WORK/stats-$M.log")"
	fi
	ask 4
	n0=$(queries); m0=$(metric)
	if [ -n "$n0" ] && [ "$n0" -ge 5 ] && [ -n "$m0" ] && [ "$m0" -ge 5 ]; then
		ok "$M: after 5 queries: total.num.queries=$n0, petrel_queries_total=$m0"
	else
		fail "$M: after 5 queries: total.num.queries='$n0', petrel_queries_total='$m0'"
	fi
	prev=$n0; mprev=$m0
	change "$M: local_data" ctl local_data "b.op.zz. A 192.0.2.2"
	change "$M: forward_add" ctl forward_add other.zz. 127.0.210.2@62109
	change "$M: set_option" ctl set_option "cache-max-ttl:" 3600
	change "$M: reload_keep_cache" ctl reload_keep_cache
	change "$M: reload" ctl reload
	change "$M: SIGHUP" kill -HUP "$PID"
	# stats resets the control counters (as Unbound's), not Prometheus'
	out=$(ctl stats | sed -n 's/^total\.num\.queries=//p')
	n=$(queries); m=$(metric)
	if [ -n "$out" ] && [ "$out" -ge "$prev" ] && [ "$n" = 0 ] && [ -n "$m" ] && [ "$m" -ge "$mprev" ]; then
		ok "$M: stats printed $out and reset: stats_noreset $n, petrel_queries_total $m"
	else
		fail "$M: stats: printed '$out' (before $prev), then stats_noreset '$n', petrel_queries_total '$m' (before $mprev)"
	fi
	it_kill "$PID"
}
# change NAME CMD...: run a runtime change, ask once more: the counters
# must have gone up from where they were
change() {
	local name=$1 n m i; shift
	"$@" > "$IT_WORK/change.out" 2>&1
	# a reload answers before the workers are back: wait for them
	for i in $(seq 50); do q a.op.zz. A && break; sleep 0.1; done
	n=$(queries); m=$(metric)
	if [ -n "$n" ] && [ "$n" -gt "$prev" ] && [ -n "$m" ] && [ "$m" -gt "$mprev" ]; then
		ok "$name: total.num.queries $prev -> $n, petrel_queries_total $mprev -> $m"
	else
		fail "$name: total.num.queries $prev -> '$n', petrel_queries_total $mprev -> '$m' ($(head -c 200 "$IT_WORK/change.out"))"
	fi
	prev=${n:-$prev}; mprev=${m:-$mprev}
}
for model in ${MODELS:-pthreads fork}; do
	stats_over_changes "$model"
done

# ------------------------------------------------ 2. status's modules
# module-config as Unbound prints it; a reload with another stack shows
# the new one
PROXY_PORT=62108
write_conf status '  module-config: "validator iterator"
  extended-statistics: yes
  interface: '"$IP@$PROXY_PORT"'
  proxy-protocol-port: '"$PROXY_PORT"
CONF=$IT_WORK/status.conf
start_petrel status || { fail "status: petrel did not start"; finish; }
out=$(ctl status)
if echo "$out" | grep -qx 'modules: 2 \[ validator iterator \]'; then
	ok "status: modules: 2 [ validator iterator ]"
else
	fail "status: $(echo "$out" | grep modules)"
fi
# mem_lines: the names of the memory lines of stats_noreset, with the
# line before them and the one after (Unbound 1.17 with "validator
# iterator": time.elapsed mem.cache.rrset mem.cache.message
# mem.mod.iterator mem.mod.validator [mem.mod.respip mem.mod.subnet]
# mem.streamwait mem.http.query_buffer mem.http.response_buffer
# histogram...; the respip and subnet lines are Unbound's fixed list,
# petrel prints the modules of the stack)
mem_lines() { echo "$1" | sed 's/=.*//' | grep -B1 -A1 '^mem\.' | sed 's/^histogram\..*/histogram/' | tr '\n' ' '; }
out=$(ctl stats_noreset)
want="time.elapsed mem.cache.rrset mem.cache.message mem.mod.iterator mem.mod.validator mem.streamwait mem.http.query_buffer mem.http.response_buffer histogram "
vi=$(echo "$out" | sed -n 's/^mem\.mod\.iterator=//p')
vv=$(echo "$out" | sed -n 's/^mem\.mod\.validator=//p')
if [ "$(mem_lines "$out")" = "$want" ] && [ "${vi:-0}" -gt 0 ] && [ "${vv:-0}" -gt 0 ] &&
	echo "$out" | grep -Eq '^mem\.streamwait=[0-9]+$' &&
	echo "$out" | grep -Eq '^mem\.http\.query_buffer=[0-9]+$' &&
	echo "$out" | grep -Eq '^mem\.http\.response_buffer=[0-9]+$'; then
	ok "stats: mem.mod.iterator=$vi mem.mod.validator=$vv, then mem.streamwait and mem.http.*, in Unbound's order"
else
	fail "stats: the memory lines: $(mem_lines "$out") ($(echo "$out" | grep '^mem\.' | tr '\n' ' '))"
fi
# bad PROXY v2 headers (version 3): the datagram dropped, the connection
# closed, each counted; a good one is not
pc="python3 $here/proxy_client.py"
p1=$(PROXY_SRC=127.0.210.3 $pc udp $IP $PROXY_PORT badver a.op.zz. 2>&1)
p2=$(PROXY_SRC=127.0.210.3 $pc tcp $IP $PROXY_PORT badver a.op.zz. 2>&1)
p3=$(PROXY_SRC=127.0.210.3 $pc udp $IP $PROXY_PORT local a.op.zz. 2>&1)
pe=$(ctl stats_noreset | sed -n 's/^num\.query\.proxy_errors=//p')
pm=$(curl -s -m 5 "http://$IP:$HTTP_PORT/metrics" | awk '/^petrel_proxy_errors_total[{ ]/ { s += $2; n++ } END { if (n) print s }')
if [ "$p1" = TIMEOUT ] && [ "$p2" = CLOSED ] && [ "$p3" = "NOERROR 1" ] &&
	[ "$pe" = 2 ] && [ "$pm" = 2 ]; then
	ok "num.query.proxy_errors=2 and petrel_proxy_errors_total 2 after a bad header over UDP and over TCP"
else
	fail "proxy errors: udp '$p1', tcp '$p2', good '$p3'; num.query.proxy_errors '$pe', petrel_proxy_errors_total '$pm'"
fi
sed -i 's/module-config: .*/module-config: "iterator"/' "$CONF"
ctl reload > /dev/null
out=$(ctl status)
if echo "$out" | grep -qx 'modules: 1 \[ iterator \]'; then
	ok "status after a reload to \"iterator\": modules: 1 [ iterator ]"
else
	fail "status after a reload: $(echo "$out" | grep modules)"
fi
# the stack's modules only: no validator line after the reload
for i in $(seq 50); do q a.op.zz. A && break; sleep 0.1; done
out=$(ctl stats_noreset)
want="time.elapsed mem.cache.rrset mem.cache.message mem.mod.iterator mem.streamwait mem.http.query_buffer mem.http.response_buffer histogram "
[ "$(mem_lines "$out")" = "$want" ] && ok "stats after the reload: mem.mod.iterator only" ||
	fail "stats after the reload: $(mem_lines "$out")"
# a module whose statistics name is not its module-config name: Unbound
# prints subnetcache's memory as mem.mod.subnet
sed -i 's/module-config: .*/module-config: "subnetcache iterator"/' "$CONF"
ctl reload > /dev/null
for i in $(seq 50); do q a.op.zz. A && break; sleep 0.1; done
out=$(ctl stats_noreset)
want="time.elapsed mem.cache.rrset mem.cache.message mem.mod.iterator mem.mod.subnet mem.streamwait mem.http.query_buffer mem.http.response_buffer histogram "
[ "$(mem_lines "$out")" = "$want" ] && ok "stats with subnetcache: mem.mod.subnet, Unbound's name" ||
	fail "stats with subnetcache: $(mem_lines "$out")"
it_kill "$PID"

# ------------------------------------------ 3. fatal errors say so
# expect_fatal NAME LOG WANT: the start failed (exit 1), every line of
# the failure is an error (no warning), WANT is said, and that it stops
expect_fatal() {
	local name=$1 rc=$2 log=$3 want=$4
	if [ "$rc" = 1 ] && grep -q "error: $want" "$log" &&
		grep -q 'error: petrel stops' "$log" &&
		! grep -q 'warning:' "$log"; then
		ok "$name: exit 1, $(grep -c 'error:' "$log") error lines, no warning"
	else
		fail "$name: exit $rc: $(grep -v notice "$log" | head -c 400)"
	fi
}
write_conf taken "  so-reuseport: no"
sed -i "s/^  port: .*/  port: 62103/" "$IT_WORK/taken.conf"
python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.210.1", 62103))
time.sleep(60)' &
holder=$!
it_track "$holder"
for i in $(seq 50); do
	ss -lnu 2>/dev/null | grep -q '127.0.210.1:62103' && break
	sleep 0.1
done
timeout 10 "$PETREL" -d -c "$IT_WORK/taken.conf" > "$IT_WORK/taken.log" 2>&1
expect_fatal "a taken port" $? "$IT_WORK/taken.log" "another process listens on 127.0.210.1 port 62103"
it_kill "$holder"
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" = 0 ] &&
	id daemon >/dev/null 2>&1; then
	write_conf user ""
	sed -i 's/^  username: .*/  username: "daemon"/; s/^  port: .*/  port: 62104/; /^  http-metrics/d; /^remote-control:/,/^forward-zone:/{/^forward-zone:/!d}' "$IT_WORK/user.conf"
	chmod 644 "$IT_WORK/user.conf"
	timeout 10 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PETREL" -d -c "$IT_WORK/user.conf" > "$IT_WORK/user.log" 2>&1
	expect_fatal "username: daemon while running as nobody" $? "$IT_WORK/user.log" "username: daemon: only root can become another user"
	# already that user: nothing to change, it runs
	sed -i 's/^  username: .*/  username: "nobody"/; s/^  pidfile: .*/  pidfile: ""/' "$IT_WORK/user.conf"
	timeout 2 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PETREL" -d -c "$IT_WORK/user.conf" > "$IT_WORK/user2.log" 2>&1
	rc=$?
	if [ "$rc" = 124 ] && ! grep -q 'error:' "$IT_WORK/user2.log"; then
		ok "username: nobody while running as nobody: runs"
	else
		fail "username: nobody as nobody: exit $rc: $(head -c 300 "$IT_WORK/user2.log")"
	fi
else
	skip "the username checks (needs root, setpriv and a user daemon)"
fi
# the default user (configure --with-username; issue 31, defect 7): with
# no username: line, root becomes it after binding; username: "" as root
# keeps root with a warning; a user that does not exist stops the start
write_conf defuser ""
sed -i '/^  username: /d; s/^  port: .*/  port: 62105/; /^  http-metrics/d; /^remote-control:/,/^forward-zone:/{/^forward-zone:/!d}' "$IT_WORK/defuser.conf"
dflt=$("$PETREL_CHECKCONF" -o username "$IT_WORK/defuser.conf" 2>&1)
want=$(sed -n 's/^#define PETREL_USERNAME "\(.*\)"$/\1/p' "${PETREL_BUILDDIR:-.}/config.h" 2>/dev/null)
[ -n "$want" ] && [ "$dflt" = "$want" ] &&
	ok "username: defaults to the configured user ($dflt)" ||
	fail "username: default is '$dflt', config.h says '$want'"
if [ "$(id -u)" = 0 ] && [ -n "$dflt" ] && id "$dflt" >/dev/null 2>&1; then
	chmod 644 "$IT_WORK/defuser.conf"
	# with a log file, which becomes the user's (as Unbound's), so that
	# a reload can reopen it after the privileges are gone
	sed -i "s|^  logfile: .*|  logfile: \"$IT_WORK/defuser-file.log\"|" "$IT_WORK/defuser.conf"
	"$PETREL" -d -c "$IT_WORK/defuser.conf" > "$IT_WORK/defuser.log" 2>&1 &
	dpid=$!
	it_track "$dpid"
	uid=""
	for i in $(seq 50); do
		uid=$(awk '/^Uid:/ {print $2}' /proc/$dpid/status 2>/dev/null)
		[ -n "$uid" ] && [ "$uid" != 0 ] && break
		sleep 0.1
	done
	[ "$uid" = "$(id -u "$dflt")" ] &&
		ok "root with no username: line runs as $dflt (uid $uid)" ||
		fail "root with no username: line: uid '$uid': $(head -c 300 "$IT_WORK/defuser.log")"
	lown=$(stat -c %u "$IT_WORK/defuser-file.log" 2>/dev/null)
	[ -n "$uid" ] && [ "$lown" = "$uid" ] &&
		ok "the log file belongs to $dflt after the start (a reload can reopen it)" ||
		fail "the log file's owner is '$lown', petrel runs as '$uid'"
	it_kill "$dpid"
	sed -i 's|^  logfile: .*|  logfile: ""|' "$IT_WORK/defuser.conf"
	sed -i 's/^  port: .*/  port: 62106/; s/^server:/server:\n  username: ""/' "$IT_WORK/defuser.conf"
	timeout 2 "$PETREL" -d -c "$IT_WORK/defuser.conf" > "$IT_WORK/rootuser.log" 2>&1
	grep -q 'warning: username: is empty and petrel runs as root' "$IT_WORK/rootuser.log" &&
		ok "username: \"\" as root: a warning that root's privileges are kept" ||
		fail "username: \"\" as root: no warning: $(head -c 300 "$IT_WORK/rootuser.log")"
else
	skip "the default user's run (needs root and the user $dflt: contrib/setup-debian.sh creates it)"
fi
sed -i 's/^  username: .*/  username: "no-such-user-petrel"/' "$IT_WORK/defuser.conf"
grep -q no-such-user "$IT_WORK/defuser.conf" ||
	sed -i 's/^server:/server:\n  username: "no-such-user-petrel"/' "$IT_WORK/defuser.conf"
out=$("$PETREL_CHECKCONF" "$IT_WORK/defuser.conf" 2>&1)
rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "username: user 'no-such-user-petrel' does not exist" &&
	ok "petrel-checkconf: a username: that does not exist is an error" ||
	fail "petrel-checkconf: username no-such-user-petrel: exit $rc: $out"

# --------------------------------------------- 4. systemd drop-in
# petrel -p writes no pidfile, whatever the config says
write_conf nopid ""
CONF=$IT_WORK/nopid.conf
"$PETREL" -d -p -c "$CONF" > "$IT_WORK/nopid.log" 2>&1 &
PID=$!
it_track "$PID"
for i in $(seq 100); do q a.op.zz. A && break; sleep 0.1; done
if q a.op.zz. A && [ ! -e "$IT_WORK/nopid.pid" ]; then
	ok "petrel -d -p: runs, no pidfile although pidfile: is set"
else
	fail "petrel -d -p: $(ls "$IT_WORK" | grep pid) $(head -c 300 "$IT_WORK/nopid.log")"
fi
it_kill "$PID"
# make install puts the unit where systemd reads it, naming the
# binaries where make install put them; run its steps as systemd would
if [ -n "$PETREL_BUILDDIR" ]; then
	inst=$IT_WORK/inst
	make -s -C "$PETREL_BUILDDIR" install DESTDIR="$inst" > "$IT_WORK/install.log" 2>&1
	unit=$(find "$inst" -path '*/systemd/system/petrel.service' | head -1)
	missing=""
	if [ -n "$unit" ]; then
		for c in $(sed -n 's/^Exec[A-Za-z]*=-\{0,1\}\([^ ]*\).*/\1/p' "$unit" | sort -u); do
			[ "$c" = /bin/kill ] && continue
			[ -x "$inst$c" ] || missing="$missing $c"
		done
	fi
	if [ -n "$unit" ] && [ -z "$missing" ] &&
		grep -q '^ExecStart=.*/petrel -d -p ' "$unit" &&
		grep -q '^ExecStartPre=-.*/petrel-anchor ' "$unit"; then
		ok "make install: ${unit#$inst}, its commands installed where it names them"
	else
		fail "make install: unit '${unit#$inst}', not installed:$missing ($(tail -3 "$IT_WORK/install.log"))"
	fi
	# the unit on this machine's paths: the DESTDIR, this test's config
	# and anchor file
	write_conf unit '  module-config: "validator iterator"
  auto-trust-anchor-file: "'"$IT_WORK"'/root.key"'
	sed -i '/^remote-control:/,/^forward-zone:/{/^forward-zone:/!d}' "$IT_WORK/unit.conf"
	sbin=$(sed -n 's|^ExecStart=\(.*\)/petrel .*|\1|p' "$unit")
	sed -e "s|$sbin/|$inst$sbin/|g" -e "s|/etc/petrel/petrel.conf|$IT_WORK/unit.conf|g" \
		-e "s|/var/lib/petrel/root.key|$IT_WORK/root.key|g" "$unit" > "$IT_WORK/petrel.service"
	if command -v systemd-analyze > /dev/null 2>&1; then
		if out=$(systemd-analyze verify --man=no "$IT_WORK/petrel.service" 2>&1); then
			ok "systemd-analyze verify: the unit is valid"
		else
			fail "systemd-analyze verify: $out"
		fi
	fi
	# the start steps in order; a '-' step may fail
	started=1
	while read -r line; do
		cmd=${line#*=}
		case "$cmd" in -*) ${cmd#-} > /dev/null 2>&1 ;;
		*) $cmd > "$IT_WORK/pre.log" 2>&1 || { started=0; fail "ExecStartPre failed: $cmd: $(cat "$IT_WORK/pre.log")"; } ;;
		esac
	done < <(grep '^ExecStartPre=' "$IT_WORK/petrel.service")
	if [ $started = 1 ]; then
		cmd=$(sed -n 's/^ExecStart=//p' "$IT_WORK/petrel.service")
		$cmd > "$IT_WORK/unit.log" 2>&1 &
		PID=$!
		it_track "$PID"
		for i in $(seq 100); do q a.op.zz. A && break; sleep 0.1; done
		if q a.op.zz. A && grep -q 'DS\|DNSKEY' "$IT_WORK/root.key" 2>/dev/null &&
			[ ! -e "$IT_WORK/unit.pid" ]; then
			ok "the unit's steps: petrel-anchor wrote the anchor file, petrel-checkconf passed, petrel -d -p answers, no pidfile"
		else
			fail "the unit's steps: $(head -c 300 "$IT_WORK/unit.log")"
		fi
		it_kill "$PID"
	fi
else
	skip "the unit checks (PETREL_BUILDDIR not set: make check-operator sets it)"
fi

# ------------------------------------ 5. checkconf checks as the start
# a missing anchor file (Debian's stock config before unbound-anchor
# ran): petrel-checkconf fails as petrel's start fails, naming the file
for opt in auto-trust-anchor-file trusted-keys-file; do
	write_conf "anchor-$opt" '  module-config: "validator iterator"
  '"$opt"': "'"$IT_WORK"'/missing.key"'
	c=$IT_WORK/anchor-$opt.conf
	"$PETREL_CHECKCONF" "$c" > "$IT_WORK/cc.out" 2>&1
	crc=$?
	timeout 10 "$PETREL" -d -c "$c" > "$IT_WORK/start.out" 2>&1
	prc=$?
	if [ $crc = 1 ] && grep -q 'missing.key' "$IT_WORK/cc.out" &&
		[ $prc = 1 ] && grep -q 'error: .*missing.key' "$IT_WORK/start.out"; then
		ok "$opt missing: petrel-checkconf exit 1 ($(head -1 "$IT_WORK/cc.out")), petrel exit 1"
	else
		fail "$opt missing: petrel-checkconf exit $crc: $(head -c 200 "$IT_WORK/cc.out"); petrel exit $prc: $(grep error "$IT_WORK/start.out" | head -c 200)"
	fi
	# with the file petrel-anchor writes, the config passes
	if [ $opt = auto-trust-anchor-file ]; then
		"$(dirname "$PETREL_CHECKCONF")/petrel-anchor" -a "$IT_WORK/missing.key" > /dev/null 2>&1
		if "$PETREL_CHECKCONF" "$c" > "$IT_WORK/cc.out" 2>&1; then
			ok "$opt present: petrel-checkconf passes"
		else
			fail "$opt present: $(cat "$IT_WORK/cc.out")"
		fi
	fi
	rm -f "$IT_WORK/missing.key"
done

# ------------------------------------ 6. flushes reach the key cache
# a signed root (127.0.210.11) with a signed kz. (127.0.210.12) and bz.
# (127.0.210.13), whose DS in the root matches none of its keys (bogus)
dnssec_flushes() {
	local Z=$IT_WORK/zones KSK ZSK n ip ds out k0 k1 k2 kk
	mkdir -p "$Z"
	local now; now=$(date -u +%s)
	local valid="-i $(date -u -d "@$((now - 86400))" +%Y%m%d%H%M%S) -e $(date -u -d "@$((now + 2592000))" +%Y%m%d%H%M%S)"
	keys() { KSK=$(cd "$Z" && ldns-keygen -k -a ECDSAP256SHA256 "$1") &&
		ZSK=$(cd "$Z" && ldns-keygen -a ECDSAP256SHA256 "$1"); }
	sign() { (cd "$Z" && ldns-signzone $valid -f "$1.signed" "$1" "$KSK" "$ZSK") > /dev/null; }
	local root_extra=""
	for spec in kz.:12 bz.:13; do
		n=${spec%%:*}; ip=127.0.210.${spec#*:}
		keys "$n" || return 1
		printf '$ORIGIN %s\n$TTL 3600\n@ IN SOA ns hostmaster 1 3600 900 604800 300\n@ IN NS ns\nns IN A %s\nwww IN A 192.0.2.5\n' \
			"$n" "$ip" > "$Z/${n%.}.zone"
		sign "${n%.}.zone" || return 1
		ds=$Z/$KSK.ds
		if [ "$n" = bz. ]; then
			# the DS of a key that signs nothing
			ds=$Z/$(cd "$Z" && ldns-keygen -k -a ECDSAP256SHA256 bz.).ds
		fi
		root_extra+="$n IN NS ns.$n"$'\n'"ns.$n IN A $ip"$'\n'"$(grep -v '^;' "$ds")"$'\n'
	done
	keys . || return 1
	{ printf '$ORIGIN .\n$TTL 3600\n. IN SOA ns.root. hostmaster.root. 1 3600 900 604800 300\n. IN NS ns.root.\nns.root. IN A 127.0.210.11\n'
	  printf '%s' "$root_extra"; } > "$Z/root.zone"
	sign root.zone || return 1
	grep -v '^;' "$Z/$KSK.ds" > "$Z/root.ds"
	printf '. 3600000 NS ns.root.\nns.root. 3600000 A 127.0.210.11\n' > "$Z/root.hints"
	nsd_start r11 127.0.210.11 ".=$Z/root.zone.signed" || return 1
	nsd_start r12 127.0.210.12 "kz.=$Z/kz.zone.signed" || return 1
	nsd_start r13 127.0.210.13 "bz.=$Z/bz.zone.signed" || return 1
	write_conf keys '  module-config: "validator iterator"
  trust-anchor-file: "'"$Z"'/root.ds"
  do-not-query-localhost: no
  extended-statistics: yes'
	sed -i "s|^  root-hints: .*|  root-hints: \"$Z/root.hints\"|; s/^  port: .*/  port: 62105/; /^forward-zone:/,\$d; /http-metrics/d" "$IT_WORK/keys.conf"
	CONF=$IT_WORK/keys.conf
	local P=62105
	"$PETREL" -d -c "$CONF" > "$IT_WORK/keys.log" 2>&1 &
	PID=$!
	it_track "$PID"
	kq() { timeout 10 dig +time=3 +tries=1 +dnssec -p $P @"$IP" "$@" 2>&1; }
	keyc() { ctl stats_noreset | sed -n 's/^key\.cache\.count=//p'; }
	nkeys() { sed -n 's/.* and \([0-9]*\) key entries$/\1/p'; }
	for i in $(seq 50); do kq localhost. A | grep -q status: && break; sleep 0.1; done
	# (a loaded machine may be slow to answer the first resolution: a
	# SERVFAIL kept for 5 s is flushed and the name asked again)
	for i in 1 2 3 4 5; do
		out=$(kq www.kz. A)
		echo "$out" | grep -q 'flags:[^;]* ad[ ;]' && break
		ctl flush_negative > /dev/null; ctl flush_bogus > /dev/null
		sleep 1
	done
	if ! echo "$out" | grep -q 'flags:[^;]* ad[ ;]'; then
		fail "keys: www.kz. is not secure: $(echo "$out" | grep -i 'status\|flags')"
		return 0
	fi
	# num.answer.secure counts the secure replies to clients, from the
	# cache too, as Unbound's: 1 after the one validated reply (not the
	# validations of the keys and DS sets behind it), two cached
	# answers two more; with prefetch: no, num.prefetch stays 0 (Unbound
	# 1.17 gives 1, 3 and 0 for the same queries)
	local s0 s1 pf
	s0=$(ctl stats_noreset | sed -n 's/^num\.answer\.secure=//p')
	kq www.kz. A > /dev/null; kq www.kz. A > /dev/null
	s1=$(ctl stats_noreset | sed -n 's/^num\.answer\.secure=//p')
	pf=$(ctl stats_noreset | sed -n 's/^total\.num\.prefetch=//p')
	if [ "$s0" = 1 ] && [ "$s1" = 3 ] && [ "$pf" = 0 ]; then
		ok "num.answer.secure: $s0 after the validated reply, $s1 after two cached answers; total.num.prefetch $pf"
	else
		fail "num.answer.secure: '$s0' then '$s1' (Unbound: 1, 3); total.num.prefetch '$pf' (prefetch: no)"
	fi
	# lookup as Unbound's (defect 11): the cached delegation of the
	# name as dump_cache writes it, the counts, a line per server
	out=$(ctl lookup www.kz.)
	if echo "$out" | head -1 | grep -qx 'The following name servers are used for lookup of www.kz.' &&
		echo "$out" | grep -Eq '^;rrset [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$' &&
		echo "$out" | grep -Pq '^kz\.\t[0-9]+\tIN\tNS\t' &&
		echo "$out" | grep -Eq '^Delegation with [1-9][0-9]* names, of which [0-9]+ can be examined to query further addresses\.$' &&
		echo "$out" | grep -Eq '^It provides [1-9][0-9]* IP addresses\.$' &&
		echo "$out" | grep -Eq '^127\.0\.210\.12 +	rto [0-9]+ msec, ttl [0-9]+, ping'; then
		ok "lookup www.kz.: Unbound's format (the kz. NS set, the counts, 127.0.210.12's line)"
	else
		fail "lookup www.kz.: $(echo "$out" | head -12)"
	fi
	k0=$(keyc)
	out=$(ctl flush_zone kz.)
	kk=$(echo "$out" | nkeys); k1=$(keyc)
	if [ "${kk:-0}" -ge 1 ] && [ "$k1" = $((k0 - kk)) ]; then
		ok "flush_zone kz.: $out (key.cache.count $k0 -> $k1)"
	else
		fail "flush_zone kz.: '$out', key.cache.count $k0 -> $k1"
	fi
	out=$(kq www.kz. A); k2=$(keyc)
	if echo "$out" | grep -q 'flags:[^;]* ad[ ;]' && [ "$k2" = "$k0" ]; then
		ok "after flush_zone: www.kz. secure, the zone's keys fetched and validated again (key.cache.count $k2)"
	else
		fail "after flush_zone: key.cache.count $k2 (was $k0): $(echo "$out" | grep -i 'status\|flags')"
	fi
	out=$(ctl flush_type kz. DNSKEY); kk=$(echo "$out" | nkeys); k1=$(keyc)
	if [ "${kk:-0}" = 1 ] && [ "$k1" = $((k0 - 1)) ]; then
		ok "flush_type kz. DNSKEY: $out"
	else
		fail "flush_type kz. DNSKEY: '$out', key.cache.count $k0 -> $k1"
	fi
	kq www.kz. A > /dev/null
	# a bogus zone leaves a bad key entry: flush_negative and flush_bogus
	# remove it, as Unbound's
	for cmd in flush_bogus flush_negative; do
		out=$(kq www.bz. A)
		if ! echo "$out" | grep -q 'status: SERVFAIL'; then
			fail "$cmd: www.bz. is not bogus: $(echo "$out" | grep status)"
			continue
		fi
		k0=$(keyc)
		out=$(ctl $cmd); kk=$(echo "$out" | nkeys); k1=$(keyc)
		if [ "${kk:-0}" -ge 1 ] && [ "$k1" -lt "$k0" ]; then
			ok "$cmd: $out (key.cache.count $k0 -> $k1)"
		else
			fail "$cmd: '$out', key.cache.count $k0 -> $k1"
		fi
	done
	dump_secure "$Z" || fail "dump: the signed zones are not served"
	it_kill "$PID"
}

# dump_cache keeps DNSSEC data and status (defect 6): after a validated
# answer (www.kz. A) and a validated NXDOMAIN (nx.kz. A), the dump has
# each signed set with its RRSIGs, security 5 and trust 11 (as
# Unbound's), the messages secure; with NSD stopped (nothing can be
# validated again), the dump loaded into a fresh petrel and into the real
# Unbound (same trust anchor) gives the secure answer with AD from the
# cache.
dump_secure() {
	local Z=$1 out d=$IT_WORK/keys.dump ub=${UNBOUND:-/usr/sbin/unbound}
	local uc=${UNBOUND_CONTROL:-/usr/sbin/unbound-control} p2 i
	kq www.kz. A | grep -q 'flags:[^;]* ad[ ;]' || return 1
	kq nx.kz. A | grep -q 'status: NXDOMAIN' || return 1
	ctl dump_cache > "$d"
	if grep -A2 -E '^;rrset [0-9]+ 1 1 11 5$' "$d" | grep -Pq '^www\.kz\.\t[0-9]+\tIN\tA\t192\.0\.2\.5$' &&
		grep -Pq '^www\.kz\.\t[0-9]+\tIN\tRRSIG\tA 13 ' "$d" &&
		grep -Eq '^msg www\.kz\. IN A 32896 1 [0-9]+ 5 1 0 0$' "$d" &&
		grep -Eq '^msg nx\.kz\. IN A 32899 1 [0-9]+ 5 0 [1-9] 0$' "$d" &&
		grep -A1 -E '^;rrset [0-9]+ 1 1 11 5$' "$d" | grep -Pq '\tIN\tNSEC\t' &&
		grep -Pq '\tIN\tRRSIG\tNSEC 13 ' "$d" &&
		grep -A1 -E '^;rrset [0-9]+ 1 1 11 5$' "$d" | grep -Pq '^kz\.\t[0-9]+\tIN\tDS\t'; then
		ok "dump_cache: www.kz. A, kz. DS and the NSEC proof with their RRSIGs, secure (5) and validated (11); both messages secure"
	else
		fail "dump_cache of the signed answers: $(grep -E -A2 '^(;rrset|msg)' "$d" | grep -E -A2 'www|nx|NSEC' | head -12)"
	fi
	it_kill "$PID"
	for i in r11 r12 r13; do it_kill "$(cat "$IT_WORK/nsd-$i/nsd.pid" 2>/dev/null)"; done
	if timeout 5 dig +time=1 +tries=1 +norecurse @127.0.210.12 kz. SOA > /dev/null 2>&1; then
		fail "dump: NSD still answers on 127.0.210.12 after it was stopped"
		return 0
	fi
	# a fresh petrel, nothing upstream: AD from the loaded dump
	"$PETREL" -d -c "$CONF" > "$IT_WORK/keys2.log" 2>&1 &
	PID=$!
	it_track "$PID"
	for i in $(seq 50); do kq localhost. A | grep -q status: && break; sleep 0.1; done
	out=$(ctl load_cache < "$d")
	if echo "$out" | grep -q '^ok' && kq www.kz. A | grep -q 'flags:[^;]* ad[ ;]' &&
		kq nx.kz. A | grep -q 'status: NXDOMAIN' &&
		kq nx.kz. A | grep -q 'flags:[^;]* ad[ ;]'; then
		ok "load_cache into a fresh petrel (upstream down): www.kz. and nx.kz. answered with AD"
	else
		fail "load_cache into petrel: '$out'; www.kz.: $(kq www.kz. A | grep -E 'status|flags:')"
	fi
	it_kill "$PID"
	# the real Unbound, same trust anchor
	if [ ! -x "$ub" ] || [ ! -x "$uc" ]; then
		skip "the Unbound load_cache check (no $ub)"
		return 0
	fi
	p2=62106
	cat > "$IT_WORK/ub-keys.conf" <<UBC
server:
  interface: $IP@$p2
  do-ip6: no
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "$IT_WORK"
  pidfile: ""
  logfile: "$IT_WORK/ub-keys.log"
  use-syslog: no
  do-not-query-localhost: no
  root-hints: "$Z/root.hints"
  trust-anchor-file: "$Z/root.ds"
  module-config: "validator iterator"
  prefetch: no
remote-control:
  control-enable: yes
  control-interface: "$IT_WORK/ub-keys.sock"
UBC
	"$ub" -d -c "$IT_WORK/ub-keys.conf" > "$IT_WORK/ub-keys.out" 2>&1 9>&- &
	local upid=$!
	it_track "$upid"
	for i in $(seq 50); do "$uc" -c "$IT_WORK/ub-keys.conf" status > /dev/null 2>&1 && break; sleep 0.1; done
	out=$("$uc" -c "$IT_WORK/ub-keys.conf" load_cache < "$d" 2>&1)
	local uq; uq=$(timeout 10 dig +time=3 +tries=1 +dnssec -p $p2 @"$IP" www.kz. A 2>&1)
	if [ "$out" = ok ] && echo "$uq" | grep -q 'flags:[^;]* ad[ ;]' &&
		echo "$uq" | grep -Pq '^www\.kz\.\s+[0-9]+\s+IN\s+A\s+192\.0\.2\.5$' &&
		"$uc" -c "$IT_WORK/ub-keys.conf" stats_noreset | grep -qx 'total.num.cachemiss=0'; then
		ok "unbound-control load_cache of petrel's dump: ok, Unbound answers www.kz. with AD from its cache"
	else
		fail "Unbound load_cache: '$out'; www.kz.: $(echo "$uq" | grep -E 'status|flags:|^www')"
	fi
	it_kill "$upid"
	return 0
}
if [ "$(id -u)" = 0 ] && command -v "$NSD" > /dev/null 2>&1 &&
	command -v ldns-keygen > /dev/null 2>&1 && command -v ldns-signzone > /dev/null 2>&1; then
	dnssec_flushes || fail "keys: the signed zones or NSD did not start"
else
	skip "the key cache checks (needs root, nsd, ldns-keygen, ldns-signzone)"
fi

finish
