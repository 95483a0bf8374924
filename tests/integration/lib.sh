# tests/integration/lib.sh - shell library shared by the integration suites
# (tests/integration/*.sh, each started by it_suite) and the benchmarks
# (bench/lib.sh).
#
# Sourced, never run. It owns every process the scripts start:
#   it_track PID         remember a PID to stop at exit
#   it_track_pidfile F   remember a pidfile whose PID is stopped at exit
#   it_cleanup           stop them all (TERM, then KILL after 3 s)
# it_init installs it_cleanup as the EXIT/INT/TERM/HUP trap, so a failure,
# a ^C or a kill of the script still stops NSD, the resolver and the load
# generators. Children of a remembered PID (forked workers) are stopped too.
#
# The resolver under test is a parameter:
#   RESOLVER=petrel   PETREL=path/to/petrel  PETREL_CONTROL=path/to/petrel-control
#   RESOLVER=unbound  UNBOUND=/usr/sbin/unbound UNBOUND_CONTROL=/usr/sbin/unbound-control
# Both read the same Unbound-style config (petrel keeps Unbound's option
# names); resolver_conf writes it, with the few lines that differ per
# resolver (thread-model and event-backend exist only in petrel).
#
# The servers it starts do not inherit descriptor 9, the scripts' hold on
# /tmp/petrel-integration.lock: a server left behind by a failed run must
# not keep every later run waiting for the lock.
#
# Written for bash (arrays, [[ ]], $(( ))).

: "${RESOLVER:=petrel}"
: "${UNBOUND:=/usr/sbin/unbound}"
: "${UNBOUND_CONTROL:=/usr/sbin/unbound-control}"
: "${NSD:=/usr/sbin/nsd}"

IT_PIDS=()
IT_PIDFILES=()
IT_WORK=""
IT_KEEP="${IT_KEEP:-0}"

# it_init DIR_PREFIX: make the work directory, install the cleanup trap.
it_init() {
	IT_WORK=$(mktemp -d "/tmp/${1:-petrel-it}.XXXXXX") || exit 1
	# world-readable so that a resolver running as "nobody" can read
	# its config and root hints after dropping privileges
	chmod 755 "$IT_WORK"
	trap 'it_cleanup' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}

# it_suite [-u] NAME: what a suite starts with, after its own tool and
# root checks: find the resolver under test, take
# /tmp/petrel-integration.lock (IT_LOCK=0 skips it; 5 minutes at most),
# make the work directory (it_init petrel-NAME), and define
#   ok MSG     a check passed: counted, and printed ("ok   MSG") unless
#              IT_QUIET=1 (then only when VERBOSE is set)
#   fail MSG   a check failed: "FAIL MSG", counted (bad is another name)
#   skip MSG   a check not made here (a module or tool this build or
#              machine lacks): "skip MSG", counted apart from the passes
#              (a suite that defines its own skip before it_suite keeps it)
#   finish     prints "NAME: P passed, F failed (S s)", with ", K skipped"
#              after the failures when K > 0, and exits 0 only if nothing
#              failed
# The resolver is petrel: PETREL, else ./petrel, else the PATH, and
# PETREL_CONTROL beside it. With -u the suite runs against Unbound too:
# RESOLVER=unbound picks $UNBOUND (a SKIP, exit 77, when it is missing),
# RESOLVER=petrel (the default) petrel, and finish names the resolver
# ("(S s, unbound)"). Without -u, RESOLVER is petrel whatever it was.
it_suite() {
	local both=0
	if [ "$1" = -u ]; then both=1; shift; fi
	IT_SUITE=$1
	[ $both = 1 ] || RESOLVER=petrel
	case $RESOLVER in
	petrel)
		it_find_petrel "$both" ;;
	unbound)
		if [ ! -x "$UNBOUND" ]; then
			echo "$IT_SUITE: SKIP: $UNBOUND not found"
			exit 77
		fi ;;
	*)
		echo "RESOLVER must be petrel or unbound" >&2
		exit 2 ;;
	esac
	export RESOLVER
	exec 9>/tmp/petrel-integration.lock
	if [ "${IT_LOCK:-1}" != 0 ] && ! flock -w 300 9; then
		echo "$IT_SUITE: another run holds /tmp/petrel-integration.lock for 5 minutes"
		exit 1
	fi
	IT_T0=$(date +%s)
	IT_NAMES_RESOLVER=$both
	it_init "petrel-$IT_SUITE"
	PASSED=0
	FAILED=0
	SKIPPED=0
	ok()   {
		PASSED=$((PASSED + 1))
		[ "${IT_QUIET:-0}" = 0 ] || [ -n "${VERBOSE:-}" ] &&
			echo "ok   $*"
		return 0
	}
	fail() { echo "FAIL $*"; FAILED=$((FAILED + 1)); return 0; }
	bad()  { fail "$@"; }
	declare -F skip >/dev/null ||
		skip() { echo "skip $*"; SKIPPED=$((SKIPPED + 1)); return 0; }
	finish() {
		local s="" r=""
		[ "$SKIPPED" = 0 ] || s=", $SKIPPED skipped"
		[ "$IT_NAMES_RESOLVER" = 0 ] || r=", $RESOLVER"
		echo "$IT_SUITE: $PASSED passed, $FAILED failed$s ($(( $(date +%s) - IT_T0 )) s$r)"
		[ "$FAILED" = 0 ]
		exit $?
	}
}

# it_find_petrel ALSO_UNBOUND: set and export PETREL (PETREL, else
# ./petrel, else the PATH; a bare name is looked up in the PATH), set
# PETREL_CONTROL (beside it) unless given; exit 1 with a line when there
# is no petrel (ALSO_UNBOUND=1: the line names RESOLVER=unbound too)
it_find_petrel() {
	if [ -z "${PETREL:-}" ]; then
		if [ -x ./petrel ]; then PETREL=$(pwd)/petrel
		else PETREL=$(command -v petrel)
		fi
	fi
	case ${PETREL:-} in
	*/*|"") ;;
	*) PETREL=$(command -v "$PETREL") ;;	# a name in the PATH
	esac
	if [ -z "${PETREL:-}" ] || [ ! -x "$PETREL" ]; then
		echo "$IT_SUITE: petrel binary not found: build it, or set PETREL=path$([ "$1" = 1 ] && echo " (or RESOLVER=unbound)")"
		exit 1
	fi
	: "${PETREL_CONTROL:=$(dirname "$PETREL")/petrel-control}"
	export PETREL
}

it_track() { IT_PIDS+=("$1"); }
it_track_pidfile() { IT_PIDFILES+=("$1"); }

# children_of PID: the PIDs whose parent is PID (one per line)
children_of() {
	# one awk over every /proc/PID/stat (one line each; cat skips the
	# ones that vanish), not one awk per process: on a machine with a few
	# hundred processes that made stopping 20 servers take minutes
	# field 4 of /proc/PID/stat is the parent; field 2 may hold spaces
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v want="$1" '{ s=$0;
		sub(/^.*\) /, "", s); split(s, f, " ");
		if (f[2] == want) { split($0, g, " "); print g[1] } }'
}

# it_kill PID...: TERM, wait up to 3 s, then KILL; also their children
it_kill() {
	local pids=() p c i
	for p in "$@"; do
		[ -n "$p" ] || continue
		kill -0 "$p" 2>/dev/null || continue
		pids+=("$p")
		for c in $(children_of "$p"); do pids+=("$c"); done
	done
	[ ${#pids[@]} -gt 0 ] || return 0
	kill -TERM "${pids[@]}" 2>/dev/null
	for i in $(seq 30); do
		local alive=0
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ $alive = 0 ] && break
		sleep 0.1
	done
	kill -KILL "${pids[@]}" 2>/dev/null
	# reap the ones that are our children, quietly
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	return 0
}

# it_cleanup: stop every remembered process and pidfile owner
it_cleanup() {
	local f pids=()
	trap - EXIT
	# pidfiles we were told of, and any resolver.pid under the work
	# directory (written by resolvers that subshells started)
	for f in "${IT_PIDFILES[@]}" $( [ -n "$IT_WORK" ] && find "$IT_WORK" -name resolver.pid 2>/dev/null); do
		[ -s "$f" ] && pids+=("$(head -1 "$f")")
	done
	it_kill "${IT_PIDS[@]}" "${pids[@]}"
	if [ -n "$IT_WORK" ] && [ "$IT_KEEP" != 1 ]; then
		rm -rf "$IT_WORK"
	elif [ -n "$IT_WORK" ]; then
		echo "work directory kept: $IT_WORK" >&2
	fi
}

# ---------------------------------------------------------------- NSD

# nsd_start NAME IP ZONE=FILE...: one NSD on IP port 53 serving the zones.
# ZONE is the zone name ("." for the root), FILE a zone file path.
# NSD_PORT: another port; NSD_EXTRA: lines added to its server: clause
# ("\n" separated; the benchmarks turn response rate limiting off).
# Returns 1 if it does not answer within 5 s.
nsd_start() {
	local name=$1 ip=$2 d="$IT_WORK/nsd-$1" z zn zf i port=${NSD_PORT:-53}
	shift 2
	mkdir -p "$d"
	{
		echo "server:"
		echo "  ip-address: $ip"
		echo "  port: $port"
		echo "  username: \"\""
		echo "  chroot: \"\""
		echo "  zonesdir: \"$d\""
		echo "  pidfile: \"$d/nsd.pid\""
		echo "  database: \"\""
		echo "  zonelistfile: \"$d/zone.list\""
		echo "  xfrdfile: \"$d/xfrd.state\""
		echo "  xfrdir: \"$d\""
		echo "  logfile: \"$d/nsd.log\""
		echo "  verbosity: 0"
		echo "  server-count: 1"
		echo "  hide-version: yes"
		echo "  reuseport: no"
		echo "  round-robin: no"
		echo "  refuse-any: no"
		[ -n "${NSD_EXTRA:-}" ] && printf '%b\n' "$NSD_EXTRA" | sed 's/^/  /'
		echo "remote-control:"
		echo "  control-enable: no"
		for z in "$@"; do
			zn=${z%%=*}; zf=${z#*=}
			echo "zone:"
			echo "  name: \"$zn\""
			echo "  zonefile: \"$zf\""
		done
	} > "$d/nsd.conf"
	"$NSD" -d -c "$d/nsd.conf" >"$d/nsd.out" 2>&1 9>&- &
	it_track $!
	it_track_pidfile "$d/nsd.pid"
	zn=${1%%=*}
	for i in $(seq 50); do
		if dig +time=1 +tries=1 +norecurse @"$ip" -p "$port" "$zn" SOA 2>/dev/null | grep -q 'status: NOERROR'; then
			return 0
		fi
		sleep 0.1
	done
	echo "nsd $name on $ip did not answer; its log:" >&2
	cat "$d/nsd.out" "$d/nsd.log" >&2 2>/dev/null
	return 1
}

# ------------------------------------------------------------ resolver

# resolver_bin: the binary of the resolver under test
resolver_bin() {
	case "$RESOLVER" in
	petrel) echo "${PETREL:-petrel}" ;;
	unbound) echo "$UNBOUND" ;;
	*) echo "unknown RESOLVER=$RESOLVER" >&2; return 1 ;;
	esac
}

# resolver_control: the control tool of the resolver under test
resolver_control() {
	case "$RESOLVER" in
	petrel) echo "${PETREL_CONTROL:-$(dirname "$(resolver_bin)")/petrel-control}" ;;
	unbound) echo "$UNBOUND_CONTROL" ;;
	esac
}

# petrel_models / petrel_backends: what `petrel -V` says the build has
petrel_models() {
	"$(resolver_bin)" -V 2>/dev/null | sed -n 's/^thread models: *//p'
}
petrel_backends() {
	"$(resolver_bin)" -V 2>/dev/null | sed -n 's/^event backends: *//p'
}

# petrel_has_module NAME: false (1) when this build of petrel lacks the
# module NAME (configure --disable-dns64 leaves dns64 out), true when it
# has it. petrel-checkconf (PETREL_CHECKCONF, else the one beside petrel
# in the build tree or installed) judges a config whose module-config is
# "NAME iterator": "is not in this build" in its answer means absent.
# Without a petrel-checkconf the answer is true (the suite then tests the
# module, and fails if it is not there: a skip must never hide a fault).
petrel_has_module() {
	local cc=${PETREL_CHECKCONF:-} d f out
	d=$(dirname "$(resolver_bin)")
	if [ -z "$cc" ]; then
		for f in "$d/smallapp/petrel-checkconf" "$d/petrel-checkconf"; do
			[ -x "$f" ] && { cc=$f; break; }
		done
	fi
	if [ -z "$cc" ] || [ ! -x "$cc" ]; then
		echo "petrel_has_module $1: no petrel-checkconf beside $(resolver_bin) (PETREL_CHECKCONF=path): taken as present" >&2
		return 0
	fi
	f=$(mktemp "${IT_WORK:-/tmp}/module-$1.XXXXXX.conf") || return 0
	if [ "$1" = iterator ]; then
		printf 'server:\n  module-config: "iterator"\n' > "$f"
	else
		printf 'server:\n  module-config: "%s iterator"\n' "$1" > "$f"
	fi
	out=$("$cc" "$f" 2>&1)
	rm -f "$f"
	! echo "$out" | grep -q "module '$1' is not in this build"
}

# resolver_conf FILE key=value...: write a config. Keys:
#   dir (work dir, required), port, threads, model (pthreads|solaris|fork),
#   backend (select|libevent), hints (root hints file), forward (ip@port
#   list, forward-zone "."), username, reuseport (yes|no), control (yes|no),
#   verbosity, extra (lines added to server: as is; "\n" separated)
# Unbound ignores model and backend (it has one of each, chosen at build).
resolver_conf() {
	local file=$1; shift
	local dir="" port=5300 threads=2 model="" backend="" hints="" forward=""
	local username="" reuseport=yes control=yes verbosity=1 extra="" kv a
	for kv in "$@"; do
		case "$kv" in
		dir=*) dir=${kv#dir=} ;;
		port=*) port=${kv#port=} ;;
		threads=*) threads=${kv#threads=} ;;
		model=*) model=${kv#model=} ;;
		backend=*) backend=${kv#backend=} ;;
		hints=*) hints=${kv#hints=} ;;
		forward=*) forward=${kv#forward=} ;;
		username=*) username=${kv#username=} ;;
		reuseport=*) reuseport=${kv#reuseport=} ;;
		control=*) control=${kv#control=} ;;
		verbosity=*) verbosity=${kv#verbosity=} ;;
		extra=*) extra=${kv#extra=} ;;
		*) echo "resolver_conf: unknown key $kv" >&2; return 1 ;;
		esac
	done
	{
		echo "# generated by tests/integration/lib.sh for $RESOLVER"
		echo "server:"
		echo "  interface: 127.0.0.1"
		echo "  port: $port"
		echo "  do-ip6: no"
		echo "  num-threads: $threads"
		if [ "$RESOLVER" = petrel ]; then
			[ -n "$model" ] && echo "  thread-model: $model"
			[ -n "$backend" ] && echo "  event-backend: $backend"
		fi
		echo "  so-reuseport: $reuseport"
		echo "  do-not-query-localhost: no"
		echo "  do-daemonize: no"
		echo "  username: \"$username\""
		echo "  chroot: \"\""
		echo "  directory: \"$dir\""
		echo "  pidfile: \"$dir/resolver.pid\""
		echo "  logfile: \"\""
		echo "  use-syslog: no"
		echo "  verbosity: $verbosity"
		echo "  access-control: 127.0.0.0/8 allow"
		echo "  qname-minimisation: no"
		echo "  edns-buffer-size: 1232"
		echo "  max-udp-size: 1232"
		echo "  msg-cache-size: 16m"
		echo "  rrset-cache-size: 32m"
		echo "  infra-host-ttl: 900"
		if [ "$RESOLVER" = unbound ]; then
			echo "  module-config: \"iterator\""
			echo "  trust-anchor-signaling: no"
			echo "  root-key-sentinel: no"
			echo "  ede: yes"
		fi
		[ -n "$hints" ] && echo "  root-hints: \"$hints\""
		[ -n "$extra" ] && printf '%b\n' "$extra" | sed 's/^/  /'
		if [ "$control" = yes ]; then
			echo "remote-control:"
			echo "  control-enable: yes"
			echo "  control-interface: \"$dir/control.sock\""
			echo "  control-use-cert: no"
		fi
		if [ -n "$forward" ]; then
			echo "forward-zone:"
			echo "  name: \".\""
			for a in $forward; do echo "  forward-addr: $a"; done
		fi
	} > "$file"
}

# resolver_start CONF LOG [TASKSET-CPUS]: start the resolver in the
# foreground mode (-d) in the background of this shell; sets RES_PID.
# Waits until it answers on 127.0.0.1 (any rcode); returns 1 if it exits
# or does not answer within 10 s.
resolver_start() {
	local conf=$1 log=$2 cpus=$3 port i bin
	port=$(sed -n 's/^ *port: *//p' "$conf" | head -1)
	bin=$(resolver_bin) || return 1
	if [ -n "$cpus" ]; then
		taskset -c "$cpus" "$bin" -d -c "$conf" >>"$log" 2>&1 9>&- &
	else
		"$bin" -d -c "$conf" >>"$log" 2>&1 9>&- &
	fi
	RES_PID=$!
	it_track "$RES_PID"
	it_track_pidfile "$(sed -n 's/^ *pidfile: *"\(.*\)"/\1/p' "$conf" | head -1)"
	for i in $(seq 100); do
		if ! kill -0 "$RES_PID" 2>/dev/null; then
			echo "$RESOLVER exited at start; log $log:" >&2
			tail -20 "$log" >&2
			return 1
		fi
		if dig +time=1 +tries=1 @127.0.0.1 -p "$port" localhost. A >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	echo "$RESOLVER did not answer on port $port within 10 s; log $log:" >&2
	tail -20 "$log" >&2
	return 1
}

# resolver_stop: SIGTERM the resolver started last, wait for it
resolver_stop() {
	[ -n "$RES_PID" ] && it_kill "$RES_PID"
	RES_PID=""
}

# resolver_pids: the PID of the resolver and of its worker processes
resolver_pids() {
	[ -n "$RES_PID" ] || return 0
	echo "$RES_PID"
	children_of "$RES_PID"
}

# resolver_thread_queries CONF: one line "N COUNT" per worker, from the
# control tool's stats_noreset output (threadN.num.queries=COUNT).
# The statistics interface of petrel is expected to match Unbound's; set
# STATS_CMD to a command that prints "threadN.num.queries=COUNT" lines to
# point this at anything else.
resolver_thread_queries() {
	local conf=$1
	if [ -n "$STATS_CMD" ]; then
		$STATS_CMD
	else
		"$(resolver_control)" -c "$conf" stats_noreset
	fi 2>/dev/null | sed -n 's/^thread\([0-9]*\)\.num\.queries=\([0-9]*\)$/\1 \2/p'
}

# cpu_ticks PID...: utime+stime in clock ticks (sysconf CLK_TCK, 100 on
# Linux), summed over the processes; /proc/PID/stat of a process counts
# all its threads, the live and the exited ones. Dead processes count 0.
cpu_ticks() {
	local p sum=0 v
	for p in "$@"; do
		v=$(awk '{ s=$0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' /proc/"$p"/stat 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo $sum
}

# rss_kb PID...: VmRSS summed over the processes (kB)
rss_kb() {
	local p sum=0 v
	for p in "$@"; do
		v=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/"$p"/status 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo $sum
}
