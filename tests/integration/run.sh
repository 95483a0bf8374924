#!/usr/bin/env bash
# tests/integration/run.sh - black-box tests of the resolver against real
# NSD servers, with real clients (dig, kdig, drill).
#
# usage: tests/integration/run.sh [-q] [-k] [answers|daemon|all]
#   -q  quick: one event-backend x thread-model pair instead of all
#   -k  keep the work directory (configs, logs) for a post-mortem
#   answers  only the resolution checks; daemon  only the process checks
# environment:
#   RESOLVER=petrel|unbound   the resolver under test (default petrel)
#   PETREL=path               the petrel binary (default: ./petrel, then PATH)
#   PETREL_CONTROL=path       petrel-control (default: beside petrel)
#   STATS_CMD="cmd args"      prints threadN.num.queries=COUNT lines, in
#                             place of "<control> -c CONF stats_noreset"
#   RES_PORT=61530            the port the resolver listens on (127.0.0.1)
#   SLOW_TIMEOUT=30           seconds to wait for SERVFAIL behind a dead server
#
# The hierarchy (testdata/zones/), each an NSD on port 53:
#   127.0.0.2  .                   root (root.hints points here)
#   127.0.0.3  zz. example.        TLDs
#   127.0.0.4  a.zz leaf.example mixed.zz
#   127.0.0.5  b.zz hoster.example noglue.zz   (also the lame server for lame.zz)
#   127.0.0.9  nothing listens     (dead.zz, one of mixed.zz's servers)
#   127.0.0.10 a UDP socket that never reads (silent.zz)
#   127.0.0.11 a relay to 127.0.0.4 that drops each question's first copy (flaky.zz)
#
# Prints one line per check ("ok", "FAIL" or "skip") and last
#   integration: N passed, M failed[, K skipped] (S s, RESOLVER)
# Exit 0 when nothing failed, 1 otherwise, 77 when a tool is missing or
# when it cannot bind port 53 (needs root). Every process it starts is
# stopped on exit, also on failure or interruption (lib.sh, it_cleanup).
# Two runs on one machine would fight over 127.0.0.x:53, so a run waits
# for /tmp/petrel-integration.lock. The resolver ports (61530 and up) are
# above the kernel's ephemeral range so no outgoing socket takes them.

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

QUICK=0
what=all
while [ $# -gt 0 ]; do
	case "$1" in
	-q) QUICK=1 ;;
	-k) IT_KEEP=1 ;;
	answers|daemon|all) what=$1 ;;
	*) echo "usage: $0 [-q] [-k] [answers|daemon|all]" >&2; exit 2 ;;
	esac
	shift
done

ZONES="$top/testdata/zones"
PORT=${RES_PORT:-61530}
# how long a client waits for the SERVFAIL about a dead or silent server
SLOW_TIMEOUT=${SLOW_TIMEOUT:-30}

for tool in "$NSD" dig kdig drill dnsperf perl; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "integration: SKIP: $tool not found (apt-get install nsd bind9-dnsutils knot-dnsutils ldnsutils dnsperf)"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "integration: SKIP: needs root to bind NSD to 127.0.0.x port 53"
	exit 77
fi
# petrel or (RESOLVER=unbound) Unbound, the lock, ok/fail/skip/finish
it_suite -u integration

# ------------------------------------------------------- the hierarchy
start_hierarchy() {
	nsd_start root 127.0.0.2 ".=$ZONES/root.zone" &&
	nsd_start tld 127.0.0.3 "zz.=$ZONES/zz.zone" "example.=$ZONES/example.zone" &&
	nsd_start leaf4 127.0.0.4 "a.zz.=$ZONES/a.zz.zone" \
		"leaf.example.=$ZONES/leaf.example.zone" "mixed.zz.=$ZONES/mixed.zz.zone" \
		"flaky.zz.=$ZONES/flaky.zz.zone" &&
	nsd_start leaf5 127.0.0.5 "b.zz.=$ZONES/b.zz.zone" \
		"hoster.example.=$ZONES/hoster.example.zone" "noglue.zz.=$ZONES/noglue.zz.zone" ||
		return 1
	# the silent server: binds UDP 127.0.0.10:53 and never reads
	perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(LocalAddr => "127.0.0.10",
		LocalPort => 53, Proto => "udp") or die "silent server: $!\n";
		$SIG{TERM} = sub { exit 0 }; sleep 1 while 1' &
	it_track $!
	# the flaky server: a relay to the NSD on 127.0.0.4 that drops the
	# first copy of every question (letter case ignored) and relays the next
	perl -MIO::Socket::INET -e '
		my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.11", LocalPort => 53,
			Proto => "udp") or die "flaky server: $!\n";
		my $up = IO::Socket::INET->new(PeerAddr => "127.0.0.4", PeerPort => 53,
			Proto => "udp") or die "flaky server upstream: $!\n";
		$SIG{TERM} = sub { exit 0 };
		my %seen; my $buf; my $r;
		while (1) {
			my $from = $s->recv($buf, 4096) or next;
			next if length($buf) < 17;
			my $q = lc substr($buf, 12);
			next if $seen{$q}++ % 2 == 0;
			$up->send($buf) or next;
			my $rin = ""; vec($rin, fileno($up), 1) = 1;
			next unless select($rin, undef, undef, 1);
			$up->recv($r, 65535);
			$s->send($r, 0, $from);
		}' &
	it_track $!
	# nothing may listen on 127.0.0.9:53
	if dig +time=1 +tries=1 @127.0.0.9 . SOA >/dev/null 2>&1; then
		echo "something answers on 127.0.0.9:53; the dead-server checks need it silent" >&2
		return 1
	fi
	return 0
}

# ------------------------------------------------------------ querying

# qcmd TOOL udp|tcp edns|noedns cd|nocd NAME TYPE [TIMEOUT]: run one query
qcmd() {
	local tool=$1 tr=$2 ed=$3 cd=$4 name=$5 type=$6 to=${7:-5}
	local a=()
	case "$tool" in
	dig)
		a=(dig @127.0.0.1 -p "$PORT" +time="$to" +tries=1)
		[ "$tr" = tcp ] && a+=(+tcp)
		if [ "$ed" = edns ]; then a+=(+edns=0); else a+=(+noedns); fi
		[ "$cd" = cd ] && a+=(+cdflag)
		a+=("$name" "$type") ;;
	kdig)
		a=(kdig @127.0.0.1 -p "$PORT" +time="$to" +retry=0)
		[ "$tr" = tcp ] && a+=(+tcp)
		if [ "$ed" = edns ]; then a+=(+edns=0); else a+=(+noedns); fi
		[ "$cd" = cd ] && a+=(+cdflag)
		a+=("$name" "$type") ;;
	drill)
		a=(drill -p "$PORT")
		[ "$tr" = tcp ] && a+=(-t)
		[ "$ed" = edns ] && a+=(-b 1232)
		[ "$cd" = cd ] && a+=(-o CD)
		a+=("$name" @127.0.0.1 "$type") ;;
	esac
	"${a[@]}" 2>&1
}

# norm: turn dig/kdig/drill output into
#   RCODE x / FLAGS a b c / EDNS 0|1 / EDE n / AN owner TYPE rdata
# (owner and rdata lower-cased, TTL and class dropped, AN lines sorted)
norm() {
	awk '
	BEGIN { rcode = "NONE"; edns = 0 }
	/->>HEADER<<-/ {
		if (match($0, /(status|rcode): [A-Z]+/)) {
			s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); rcode = s
		}
		nan = 0; inans = 0; edns = 0; ede = ""; flags = ""
	}
	/^;; [Ff]lags:/ {
		s = $0; sub(/^;; [Ff]lags: */, "", s); sub(/;.*/, "", s); flags = s
	}
	/OPT PSEUDOSECTION|EDNS PSEUDOSECTION|^;; EDNS: version/ { edns = 1 }
	/EDE: *[0-9]+/ { s = $0; sub(/.*EDE: */, "", s); sub(/[^0-9].*/, "", s); ede = s }
	/^;; ANSWER SECTION:/ { inans = 1; next }
	inans && (/^$/ || /^;/) { inans = 0 }
	inans {
		owner = tolower($1); type = $4; r = ""
		for (i = 5; i <= NF; i++) r = r (i > 5 ? " " : "") $i
		if (type != "TXT") r = tolower(r)
		an[++nan] = "AN " owner " " type " " r
	}
	END {
		print "RCODE " rcode; print "FLAGS " flags; print "EDNS " edns
		if (ede != "") print "EDE " ede
		for (i = 1; i <= nan; i++) print an[i]
	}' | sort
}

# answers_of NORMALISED: the AN lines joined with "|", sorted
answers_of() { echo "$1" | sed -n 's/^AN //p' | sort | paste -sd'|' -; }
field_of() { echo "$1" | sed -n "s/^$2 //p"; }

# check_case LABEL NAME TYPE RCODE EXPECTED-ANSWERS [EDE]: every tool,
# UDP and TCP, with and without EDNS and the CD bit (16 queries). EXPECTED-ANSWERS is
# "owner TYPE rdata|..." sorted (see answers_of); EDE "yes" demands an
# Extended DNS Error in the EDNS answers from petrel.
check_case() {
	local label=$1 name=$2 type=$3 want_rc=$4 want_an=$5 want_ede=$6
	local tool tr ed cd out n rc an flags bad=() why v
	# dig: every combination; kdig and drill: UDP and TCP with and
	# without EDNS, the CD bit on two of the four (pairwise coverage)
	for v in dig/udp/edns/nocd dig/udp/edns/cd dig/udp/noedns/nocd dig/udp/noedns/cd \
		dig/tcp/edns/nocd dig/tcp/edns/cd dig/tcp/noedns/nocd dig/tcp/noedns/cd \
		kdig/udp/edns/cd kdig/udp/noedns/nocd kdig/tcp/edns/nocd kdig/tcp/noedns/cd \
		drill/udp/edns/nocd drill/udp/noedns/cd drill/tcp/edns/cd drill/tcp/noedns/nocd; do
		IFS=/ read -r tool tr ed cd <<<"$v"
		out=$(qcmd $tool $tr $ed $cd "$name" "$type")
		n=$(echo "$out" | norm)
		rc=$(field_of "$n" RCODE); an=$(answers_of "$n"); flags=" $(field_of "$n" FLAGS) "
		why=""
		[ "$rc" = "$want_rc" ] || why="rcode $rc"
		[ "$an" = "$want_an" ] || why="$why answer [$an]"
		case "$flags" in *" qr "*) ;; *) why="$why no-qr" ;; esac
		case "$flags" in *" ra "*) ;; *) why="$why no-ra" ;; esac
		if [ "$cd" = cd ]; then
			case "$flags" in *" cd "*) ;; *) why="$why cd-not-copied" ;; esac
		fi
		if [ "$ed" = edns ] && [ "$(field_of "$n" EDNS)" != 1 ]; then why="$why no-OPT"; fi
		if [ "$ed" = noedns ] && [ "$(field_of "$n" EDNS)" != 0 ]; then why="$why OPT-to-non-EDNS-client"; fi
		if [ "$want_ede" = yes ] && [ "$RESOLVER" = petrel ] && [ "$ed" = edns ] &&
		   [ "$tool" != drill ] && [ -z "$(field_of "$n" EDE)" ]; then
			why="$why no-EDE"
		fi
		[ -n "$why" ] && bad+=("$v:$why")
	done
	if [ ${#bad[@]} = 0 ]; then
		ok "[$label] $name $type -> $want_rc (dig, kdig, drill; udp, tcp; edns, noedns; cd, nocd)"
	else
		fail "[$label] $name $type -> $want_rc: ${bad[*]:0:4}$([ ${#bad[@]} -gt 4 ] && echo " ... (${#bad[@]} of 16 failed)")"
	fi
}

# check_big LABEL: the 1.6 kB TXT: TC over UDP, the whole RRset over TCP
# and through the clients' automatic TCP retry
check_big() {
	local label=$1 n why="" out c
	n=$(dig @127.0.0.1 -p "$PORT" +time=5 +tries=1 +ignore +bufsize=1232 big.a.zz TXT | norm)
	case " $(field_of "$n" FLAGS) " in *" tc "*) ;; *) why="$why udp-edns-no-TC" ;; esac
	n=$(dig @127.0.0.1 -p "$PORT" +time=5 +tries=1 +ignore +noedns big.a.zz TXT | norm)
	case " $(field_of "$n" FLAGS) " in *" tc "*) ;; *) why="$why udp-noedns-no-TC" ;; esac
	for out in "dig udp $(qcmd dig udp edns nocd big.a.zz TXT)" \
		"dig tcp $(qcmd dig tcp edns nocd big.a.zz TXT)" \
		"kdig udp $(qcmd kdig udp edns nocd big.a.zz TXT)" \
		"kdig tcp $(qcmd kdig tcp noedns nocd big.a.zz TXT)" \
		"drill tcp $(qcmd drill tcp edns nocd big.a.zz TXT)"; do
		n=$(echo "$out" | norm)
		c=$(echo "$n" | grep -c '^AN big.a.zz. TXT "')
		[ "$(field_of "$n" RCODE)" = NOERROR ] && [ "$c" = 6 ] ||
			why="$why ${out%% *}/$(echo "$out" | cut -d' ' -f2):rcode=$(field_of "$n" RCODE),txt=$c"
	done
	if [ -z "$why" ]; then
		ok "[$label] big.a.zz TXT (1.6 kB): TC over UDP, 6 TXT over TCP and after the TC retry"
	else
		fail "[$label] big.a.zz TXT:$why"
	fi
}

# check_flaky LABEL: the only server of flaky.zz drops the first copy of
# each question; a resolver must retry it rather than give up at once
check_flaky() {
	local n q="w$PORT.flaky.zz"
	n=$(dig @127.0.0.1 -p "$PORT" +time=15 +tries=1 "$q" A | norm)
	if [ "$(field_of "$n" RCODE)" = NOERROR ] &&
	   [ "$(answers_of "$n")" = "$q. A 192.0.2.6" ]; then
		ok "[$1] $q A -> NOERROR (its one server drops the first try)"
	else
		fail "[$1] $q A -> NOERROR through a server that drops the first try: got $(field_of "$n" RCODE) [$(answers_of "$n")]"
	fi
}

# the cases that resolve (or fail) quickly
answer_cases() {
	local l=$1
	check_case "$l" www.a.zz A NOERROR "www.a.zz. A 192.0.2.1"
	check_case "$l" www.a.zz AAAA NOERROR "www.a.zz. AAAA 2001:db8::1"
	check_case "$l" www.zz A NOERROR "www.zz. A 192.0.2.100"
	check_case "$l" cname.a.zz A NOERROR "cname.a.zz. CNAME www.b.zz.|www.b.zz. A 192.0.2.2"
	check_case "$l" chain.a.zz A NOERROR \
		"c2.b.zz. CNAME target.leaf.example.|chain.a.zz. CNAME c2.b.zz.|target.leaf.example. A 192.0.2.3"
	check_case "$l" dangling.a.zz A NXDOMAIN "dangling.a.zz. CNAME nothere.b.zz."
	check_case "$l" nx.a.zz A NXDOMAIN ""
	check_case "$l" nx.zz A NXDOMAIN ""
	check_case "$l" nodata.a.zz AAAA NOERROR ""
	check_case "$l" foo.wild.a.zz A NOERROR "foo.wild.a.zz. A 192.0.2.99"
	check_case "$l" x.y.wild.a.zz A NOERROR "x.y.wild.a.zz. A 192.0.2.99"
	check_case "$l" foo.wild.a.zz TXT NOERROR ""
	check_case "$l" www.noglue.zz A NOERROR "www.noglue.zz. A 192.0.2.4"
	check_case "$l" www.mixed.zz A NOERROR "www.mixed.zz. A 192.0.2.5"
	check_case "$l" www.lame.zz A SERVFAIL "" yes
	check_flaky "$l"
	check_big "$l"
}

# slow_start: ask for the names behind dead and silent servers in the
# background (a resolver may need tens of seconds to give up: Unbound
# 1.17 takes about 30 s); slow_check collects the answers
slow_start() {
	local n
	SLOW_DIR="$IT_WORK/slow.$1"
	mkdir -p "$SLOW_DIR"
	for n in www.dead.zz www.silent.zz; do
		dig @127.0.0.1 -p "$PORT" +time="$SLOW_TIMEOUT" +tries=1 "$n" A >"$SLOW_DIR/$n" 2>&1 &
		echo $! >"$SLOW_DIR/$n.pid"
		it_track "$(cat "$SLOW_DIR/$n.pid")"
	done
}
slow_check() {
	local l=$1 n norm_out rc ede t0=$(date +%s)
	for n in www.dead.zz www.silent.zz; do
		wait "$(cat "$SLOW_DIR/$n.pid")" 2>/dev/null
		norm_out=$(norm <"$SLOW_DIR/$n")
		rc=$(field_of "$norm_out" RCODE); ede=$(field_of "$norm_out" EDE)
		if [ "$rc" = NONE ] && [ "$RESOLVER" = unbound ]; then
			# Unbound 1.17 waits on a dead name server without end
			# (minutes, the client gives up first); petrel must not
			skip "[$l] $n A -> SERVFAIL: unbound gave no answer in $SLOW_TIMEOUT s (known Unbound behaviour)"
		elif [ "$rc" != SERVFAIL ]; then
			fail "[$l] $n A -> SERVFAIL: got ${rc/NONE/no answer in $SLOW_TIMEOUT s}"
		elif [ "$RESOLVER" = petrel ] && [ -z "$ede" ]; then
			fail "[$l] $n A -> SERVFAIL: no Extended DNS Error"
		else
			ok "[$l] $n A -> SERVFAIL${ede:+ EDE $ede}"
		fi
	done
}

# run_answers LABEL key=value...: start the resolver with that config,
# run every answer check, stop it
run_answers() {
	local label=$1 conf d
	shift
	d="$IT_WORK/answers.$(echo "$label" | tr ' /' '__')"
	mkdir -p "$d"; chmod 755 "$d"
	conf="$d/resolver.conf"
	resolver_conf "$conf" dir="$d" port="$PORT" hints="$ZONES/root.hints" "$@"
	if ! resolver_start "$conf" "$conf.log"; then
		fail "[$label] the resolver starts and answers on 127.0.0.1@$PORT"
		return
	fi
	slow_start "$(basename "$d")"
	answer_cases "$label"
	slow_check "$label"
	if ! kill -0 "$RES_PID" 2>/dev/null; then
		fail "[$label] the resolver is still running after the checks (log $conf.log)"
	fi
	case "$label" in
	*/io_uring*)
		# the run-time probe passed (run.sh skips io_uring otherwise):
		# the workers must really have run it, not the fallback
		if grep -q "event-backend io_uring is not usable" "$conf.log"; then
			fail "[$label] ran on io_uring, not a fallback (log $conf.log)"
		else
			ok "[$label] ran on io_uring, not a fallback"
		fi;;
	esac
	resolver_stop
}

# ------------------------------------------------------- daemon checks

# worker_stats_ok CONF N: every one of N workers counted some queries
worker_stats_ok() {
	local conf=$1 want=$2 lines
	lines=$(resolver_thread_queries "$conf")
	STATS_SEEN=$(echo $lines)
	[ "$(echo "$lines" | grep -c .)" = "$want" ] || return 1
	! echo "$lines" | awk '$2 <= 0 { bad = 1 } END { exit !bad }'
}

# query file for dnsperf: names that answer NOERROR from cache
write_qfile() {
	printf '%s\n' "www.a.zz A" "www.a.zz AAAA" "cname.a.zz A" "chain.a.zz A" \
		"www.b.zz A" "www.noglue.zz A" "www.mixed.zz A" "foo.wild.a.zz A" \
		"www.zz A" "nodata.a.zz AAAA" > "$IT_WORK/queries.txt"
	# warm the cache so the load is cached answers
	while read -r n t; do
		dig @127.0.0.1 -p "$PORT" +time=5 +tries=1 "$n" "$t" >/dev/null
	done < "$IT_WORK/queries.txt"
}

# dnsperf_lost FILE: the "Queries lost" count of a dnsperf output
dnsperf_lost() { sed -n 's/^ *Queries lost: *\([0-9]*\).*/\1/p' "$1"; }
dnsperf_done() { sed -n 's/^ *Queries completed: *\([0-9]*\).*/\1/p' "$1"; }

# check_workers MODEL N: N workers answer, each counted some
check_workers() {
	local model=$1 nw=$2 label conf i
	label="$RESOLVER ${model:-threads} x$nw"
	conf="$IT_WORK/workers.$model.$nw.conf"
	resolver_conf "$conf" dir="$IT_WORK" port="$PORT" hints="$ZONES/root.hints" \
		threads="$nw" model="$model"
	if ! resolver_start "$conf" "$conf.log"; then
		fail "[$label] starts with $nw workers"
		return
	fi
	write_qfile
	# 64 client sockets: SO_REUSEPORT hashes them over the workers
	dnsperf -s 127.0.0.1 -p "$PORT" -d "$IT_WORK/queries.txt" -c 64 -l 2 -Q 4000 \
		>"$conf.perf" 2>&1
	if [ "$(dnsperf_done "$conf.perf")" -gt 0 ] 2>/dev/null && [ "$(dnsperf_lost "$conf.perf")" = 0 ]; then
		ok "[$label] answers under load ($(dnsperf_done "$conf.perf") queries, 0 lost)"
	else
		fail "[$label] answers under load: completed $(dnsperf_done "$conf.perf"), lost $(dnsperf_lost "$conf.perf")"
	fi
	if worker_stats_ok "$conf" "$nw"; then
		ok "[$label] every worker served queries (per-worker num.queries: $STATS_SEEN)"
	else
		fail "[$label] every worker served queries: want $nw workers with num.queries > 0, got [$STATS_SEEN] from $(resolver_control) stats_noreset"
	fi
	resolver_stop
}

# check_fork_kill: kill -9 a forked worker while a client queries in a loop
check_fork_kill() {
	local label="$RESOLVER fork x2" conf="$IT_WORK/forkkill.conf" errs kids victim i loop_pid
	resolver_conf "$conf" dir="$IT_WORK" port="$PORT" hints="$ZONES/root.hints" \
		threads=2 model=fork
	if ! resolver_start "$conf" "$conf.log"; then
		fail "[$label] starts"
		return
	fi
	write_qfile
	kids=$(children_of "$RES_PID" | wc -l)
	if [ "$kids" -lt 2 ]; then
		fail "[$label] kill -9 a worker: expected 2 worker processes under $RES_PID, found $kids"
		resolver_stop; return
	fi
	: >"$IT_WORK/forkkill.errors"
	(
		end=$(( $(date +%s) + 5 ))
		while [ "$(date +%s)" -lt "$end" ]; do
			out=$(dig @127.0.0.1 -p "$PORT" +time=1 +tries=3 www.a.zz A 2>&1)
			case "$out" in *"status: NOERROR"*"192.0.2.1"*) ;;
			*) echo "$(date +%T) $(echo "$out" | grep -m1 'status\|timed out\|connection')" >>"$IT_WORK/forkkill.errors" ;;
			esac
		done
	) &
	loop_pid=$!
	it_track $loop_pid
	sleep 1.5
	victim=$(children_of "$RES_PID" | head -1)
	kill -9 "$victim"
	wait $loop_pid
	for i in $(seq 30); do
		[ "$(children_of "$RES_PID" | grep -vc "^$victim$")" -ge 2 ] && break
		sleep 0.1
	done
	errs=$(wc -l <"$IT_WORK/forkkill.errors")
	if [ "$errs" = 0 ]; then
		ok "[$label] kill -9 worker $victim during a query loop: no client error"
	else
		fail "[$label] kill -9 worker $victim: $errs client errors: $(head -2 "$IT_WORK/forkkill.errors" | tr '\n' ' ')"
	fi
	if [ "$(children_of "$RES_PID" | grep -vc "^$victim$")" -ge 2 ]; then
		ok "[$label] the killed worker was restarted"
	else
		fail "[$label] the killed worker was restarted: workers now $(children_of "$RES_PID" | tr '\n' ' ')"
	fi
	resolver_stop
}

# check_hup_load MODEL: SIGHUP during 10 s of 20 000 qps, zero lost
check_hup_load() {
	local model=$1 label="$RESOLVER ${1:-threads} x2" conf
	conf="$IT_WORK/hup.$model.conf"
	resolver_conf "$conf" dir="$IT_WORK" port="$PORT" hints="$ZONES/root.hints" \
		threads=2 model="$model"
	if ! resolver_start "$conf" "$conf.log"; then
		fail "[$label] starts"
		return
	fi
	write_qfile
	dnsperf -s 127.0.0.1 -p "$PORT" -d "$IT_WORK/queries.txt" -c 32 -l 10 -Q 20000 -t 2 \
		>"$conf.perf" 2>&1 &
	local perf=$!
	it_track $perf
	sleep 4
	kill -HUP "$RES_PID"
	wait $perf
	local lost done_q
	lost=$(dnsperf_lost "$conf.perf"); done_q=$(dnsperf_done "$conf.perf")
	if [ "$lost" = 0 ] && [ "${done_q:-0}" -gt 100000 ]; then
		ok "[$label] SIGHUP at 4 s of 10 s at 20000 qps: $done_q answered, 0 lost"
	else
		fail "[$label] SIGHUP under 20000 qps: completed ${done_q:-?}, lost ${lost:-?} (dnsperf output $conf.perf)"
	fi
	kill -0 "$RES_PID" 2>/dev/null || fail "[$label] still running after SIGHUP"
	resolver_stop
}

# check_hup_broken: a config that does not load, then SIGHUP: the old
# config keeps answering and the log names the file and the line
check_hup_broken() {
	local label="$RESOLVER ${1:-threads} x2" conf="$IT_WORK/broken.conf" line out
	resolver_conf "$conf" dir="$IT_WORK" port="$PORT" hints="$ZONES/root.hints" \
		threads=2 model="$1"
	if ! resolver_start "$conf" "$conf.log"; then
		fail "[$label] starts"
		return
	fi
	cp "$conf" "$conf.good"
	printf 'server:\n  num-threads: 2\n  no-such-option-here: 1\n' >>"$conf"
	line=$(wc -l <"$conf")
	kill -HUP "$RES_PID"
	sleep 1.5
	out=$(dig @127.0.0.1 -p "$PORT" +time=2 +tries=2 www.a.zz A 2>&1)
	local why=""
	kill -0 "$RES_PID" 2>/dev/null || why="$why the-daemon-exited"
	case "$out" in *"status: NOERROR"*"192.0.2.1"*) ;; *) why="$why no-answer-after-HUP" ;; esac
	grep -q "$conf[:( ]*\(line \)\?$line\b" "$conf.log" || why="$why log-does-not-say-$conf:$line"
	if [ -z "$why" ]; then
		ok "[$label] SIGHUP with a broken config: keeps answering, logs $(grep -m1 -o "$conf[^ ]*" "$conf.log")"
	elif [ "$RESOLVER" = unbound ]; then
		# Unbound exits on a config error at reload; petrel must not.
		# Seeing the check fail here shows it can fail.
		ok "[$label] SIGHUP with a broken config: unbound fails it as expected ($why)"
	else
		fail "[$label] SIGHUP with a broken config:$why (log $conf.log)"
	fi
	resolver_stop
}

# check_username MODEL: username: nobody; every worker runs unprivileged
check_username() {
	local model=$1 label="$RESOLVER ${1:-threads} x2" conf uid p t bad="" n=0
	conf="$IT_WORK/user.$model.conf"
	uid=$(id -u nobody 2>/dev/null) || { skip "[$label] username: no user nobody"; return; }
	resolver_conf "$conf" dir="$IT_WORK" port="$PORT" hints="$ZONES/root.hints" \
		threads=2 model="$model" username=nobody control=no
	if ! resolver_start "$conf" "$conf.log"; then
		fail "[$label] starts with username: nobody"
		return
	fi
	sleep 0.5
	for p in $(resolver_pids); do
		for t in /proc/"$p"/task/*/status; do
			[ -r "$t" ] || continue
			n=$((n + 1))
			# Uid: real effective saved filesystem
			sed -n 's/^Uid:[[:space:]]*//p' "$t" | awk -v u="$uid" '
				{ for (i = 1; i <= 4; i++) if ($i != u) exit 1 }' ||
				bad="$bad $(basename "$(dirname "$(dirname "$t")")")/$(basename "$(dirname "$t")"):$(sed -n 's/^Uid:[[:space:]]*//p' "$t" | tr '\t' ',')"
		done
	done
	if [ -z "$bad" ] && [ "$n" -gt 0 ]; then
		ok "[$label] username: nobody: all $n threads/processes run as uid $uid"
	else
		fail "[$label] username: nobody: privileged threads/processes:$bad (of $n)"
	fi
	resolver_stop
}

# check_burst MODEL BACKEND: waves of queries sent without waiting are
# received and answered in batches (the peek parses and prefetches a whole
# batch, a socket that stays full goes busy); every answer must be its own
# query's (tests/integration/burst.pl)
check_burst() {
	local model=$1 backend=$2 label conf out
	label="$RESOLVER ${model:-threads}/${backend:-default} x2"
	conf="$IT_WORK/burst.$model.$backend.conf"
	resolver_conf "$conf" dir="$IT_WORK" port="$PORT" hints="$ZONES/root.hints" \
		threads=2 model="$model" backend="$backend" extra="so-rcvbuf: 4m"
	if ! resolver_start "$conf" "$conf.log"; then
		fail "[$label] starts for the burst"
		return
	fi
	write_qfile
	if out=$(perl "$top/tests/integration/burst.pl" "$PORT" "$IT_WORK/queries.txt" 40 200 2>&1); then
		ok "[$label] bursts answered from cache, each answer its query's: $out"
	else
		fail "[$label] bursts answered from cache, each answer its query's: $out"
	fi
	resolver_stop
}

# check_log_queries: log-queries and log-replies write one line per query
# and per answer, for an answer after recursion and one from the cache, in
# Unbound's shape (with log-tag-queryreply: "query: ip name type class",
# "reply: ip name type class rcode seconds cached size"); log-local-actions
# logs a local-zone answer (log-servfail: tests/check_mesh.c)
check_log_queries() {
	local label="$RESOLVER x1" conf="$IT_WORK/logq.conf" why="" n
	if [ "$RESOLVER" != petrel ]; then
		skip "[$label] log-queries/log-replies: petrel's log format"
		return
	fi
	resolver_conf "$conf" dir="$IT_WORK" port="$PORT" hints="$ZONES/root.hints" \
		threads=1 control=no
	printf 'server:\n  log-queries: yes\n  log-replies: yes\n  log-tag-queryreply: yes\n  log-local-actions: yes\n  log-servfail: yes\n  local-data: "here.lan. 60 IN A 192.0.2.1"\n' >>"$conf"
	if ! resolver_start "$conf" "$conf.log"; then
		fail "[$label] starts with log-queries"
		return
	fi
	for n in 1 2; do
		dig @127.0.0.1 -p "$PORT" +time=3 +tries=1 www.a.zz A >/dev/null 2>&1
	done
	dig @127.0.0.1 -p "$PORT" +time=3 +tries=1 here.lan A >/dev/null 2>&1
	sleep 0.3
	n=$(grep -c "query: 127\.0\.0\.1 www\.a\.zz\. A IN$" "$conf.log")
	[ "$n" = 2 ] || why="$why $n-query-lines"
	n=$(grep -c "reply: 127\.0\.0\.1 www\.a\.zz\. A IN NOERROR [0-9]*\.[0-9]\{6\} 0 [0-9]*$" "$conf.log")
	[ "$n" = 1 ] || why="$why $n-recursion-reply-lines"
	n=$(grep -c "reply: 127\.0\.0\.1 www\.a\.zz\. A IN NOERROR 0\.000000 1 [0-9]*$" "$conf.log")
	[ "$n" = 1 ] || why="$why $n-cached-reply-lines"
	n=$(grep -c "info: here\.lan\. [a-z_]* 127\.0\.0\.1@[0-9]* here\.lan\. A IN$" "$conf.log")
	[ "$n" = 1 ] || why="$why $n-local-action-lines"
	if [ -z "$why" ]; then
		ok "[$label] log-queries/log-replies/log-tag-queryreply/log-local-actions: Unbound's lines, per query and per answer (recursion and cache)"
	else
		fail "[$label] log-queries/log-replies:$why (log $conf.log)"
	fi
	resolver_stop
}

# ------------------------------------------------------------------ main

if ! start_hierarchy; then
	fail "the NSD hierarchy starts"
	finish
fi
ok "the NSD hierarchy answers (4 NSD, a dead and a silent address)"

if [ "$RESOLVER" = petrel ]; then
	MODELS=$(petrel_models)
	BACKENDS=$(petrel_backends)
	: "${MODELS:=pthreads fork}"
	: "${BACKENDS:=select libevent}"
	if echo " $BACKENDS " | grep -q " io_uring " &&
		! "$(resolver_bin)" -V 2>/dev/null | grep -q '^io_uring: usable'; then
		# built, but this kernel (or seccomp, or the sysctl) refuses it
		skip "[petrel] the io_uring backend: $("$(resolver_bin)" -V 2>/dev/null | sed -n 's/^io_uring: //p')"
		BACKENDS=$(echo " $BACKENDS " | sed 's/ io_uring / /; s/^ //; s/ $//')
	fi
	if [ $QUICK = 1 ]; then
		# (quick: libevent where built, as before io_uring was added)
		MODELS=${MODELS%% *}; BACKENDS=$(echo "$BACKENDS" | tr ' ' '\n' | grep -v '^io_uring$' | tail -1)
	fi
else
	MODELS=""
	BACKENDS=""
fi

if [ "$what" != daemon ]; then
	if [ "$RESOLVER" = petrel ]; then
		# the model x backend pairs run side by side, each resolver on
		# its own port, their lines printed in order when all are done
		k=0
		apids=()
		for m in $MODELS; do
			for b in $BACKENDS; do
				k=$((k + 1))
				( PORT=$((PORT + k)); PASSED=0; FAILED=0; SKIPPED=0
				  run_answers "petrel $m/$b x2" threads=2 model="$m" backend="$b"
				) >"$IT_WORK/answers.$k.out" 2>&1 &
				apids+=($!)
				it_track $!
			done
		done
		wait "${apids[@]}"
		for i in $(seq $k); do
			cat "$IT_WORK/answers.$i.out"
			PASSED=$((PASSED + $(grep -c '^ok ' "$IT_WORK/answers.$i.out")))
			FAILED=$((FAILED + $(grep -c '^FAIL' "$IT_WORK/answers.$i.out")))
			SKIPPED=$((SKIPPED + $(grep -c '^skip ' "$IT_WORK/answers.$i.out")))
		done
	else
		run_answers "unbound x2" threads=2
	fi
fi

if [ "$what" != answers ]; then
	for m in ${MODELS:-default}; do
		[ "$m" = default ] && m=""
		for nw in 1 2 4; do
			check_workers "$m" "$nw"
		done
	done
	if [ "$RESOLVER" = petrel ] && echo " $MODELS " | grep -q " fork "; then
		check_fork_kill
	else
		skip "[$RESOLVER] kill -9 a forked worker: $RESOLVER has no fork model"
	fi
	for m in ${MODELS:-default}; do
		[ "$m" = default ] && m=""
		[ $QUICK = 1 ] && [ -n "$m" ] && [ "$m" != "${MODELS%% *}" ] && continue
		check_hup_load "$m"
		check_hup_broken "$m"
		check_username "$m"
	done
	if [ "$RESOLVER" = petrel ]; then
		for m in ${MODELS:-default}; do
			[ "$m" = default ] && m=""
			for b in $BACKENDS; do
				check_burst "$m" "$b"
			done
		done
	else
		check_burst "" ""
	fi
	check_log_queries
fi

finish
