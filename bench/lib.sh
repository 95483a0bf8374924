# bench/lib.sh - the benchmark's measuring tools, sourced by bench/run.
#
# Builds on tests/integration/lib.sh (process ownership and cleanup, NSD,
# resolver configs, /proc CPU and RSS readers). Adds:
#   cg_init / cg_new / cg_quota / cg_exec   a CPU quota per server through a
#        cgroup (v2 cpu.max, or v1 cpu.cfs_quota_us), so that one dnsperf on
#        a small machine saturates the server
#   bench_measure   one dnsperf run against one server, with the server's CPU
#        time before and after; prints one TSV line of results
# Units: latency in milliseconds, CPU per answer in microseconds, RSS in kB.

. "$BENCH_TOP/tests/integration/lib.sh"

# the NSD of every benchmark answers without response rate limiting: NSD's
# default (rrl-ratelimit: 200 per second per source /24 and answer kind)
# would drop every other answer to a resolver asking for many names under
# one wildcard and truncate the rest (slip), sending it to TCP; the
# benchmark would measure NSD's limit, not the resolver
BENCH_NSD_EXTRA="rrl-ratelimit: 0\nrrl-whitelist-ratelimit: 0"

CG_BASE=""
CG_VER=""

# cg_init: find a writable cpu cgroup hierarchy and make our group in it;
# sets CG_BASE (empty when none: then no quota, the report says so)
cg_init() {
	local b
	if [ -f /sys/fs/cgroup/cgroup.controllers ] &&
	   grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
		b=/sys/fs/cgroup/petrel-bench.$$
		if mkdir "$b" 2>/dev/null; then
			echo "+cpu" >"$b/cgroup.subtree_control" 2>/dev/null
			CG_BASE=$b; CG_VER=2
		fi
	elif [ -d /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
		b=/sys/fs/cgroup/cpu/petrel-bench.$$
		if mkdir "$b" 2>/dev/null; then
			CG_BASE=$b; CG_VER=1
		fi
	fi
	[ -n "$CG_BASE" ]
}

# cg_new NAME: make a child group, print its path
cg_new() {
	[ -n "$CG_BASE" ] || return 1
	mkdir -p "$CG_BASE/$1" && echo "$CG_BASE/$1"
}

# cg_quota PATH MICROSECONDS: CPU time per 100 ms; -1 = no limit.
# Applied as the same share of a CG_PERIOD (10 ms) period: with 100 ms a
# throttled server would sit still for up to 75 ms while its socket
# buffer overflows, and dnsperf would count losses the server's speed has
# nothing to do with.
CG_PERIOD=${CG_PERIOD:-10000}
cg_quota() {
	[ -n "$1" ] || return 0
	local q=$2
	[ "$q" != -1 ] && q=$((q * CG_PERIOD / 100000))
	if [ "$CG_VER" = 2 ]; then
		if [ "$q" = -1 ]; then echo "max $CG_PERIOD" >"$1/cpu.max"
		else echo "$q $CG_PERIOD" >"$1/cpu.max"; fi
	else
		echo "$CG_PERIOD" >"$1/cpu.cfs_period_us"
		echo "$q" >"$1/cpu.cfs_quota_us"
	fi
}

# cg_throttled PATH: periods in which the group was throttled (shows the
# quota was the limit, i.e. dnsperf saturated the server)
cg_throttled() {
	[ -n "$1" ] && sed -n 's/^nr_throttled //p' "$1/cpu.stat" 2>/dev/null
}

# cg_cleanup: remove the groups (after every process in them stopped)
cg_cleanup() {
	local d
	[ -n "$CG_BASE" ] || return 0
	for d in "$CG_BASE"/*/; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	rmdir "$CG_BASE" 2>/dev/null
	return 0
}

# cg_exec PATH CPUS CMD...: run CMD (exec, same PID) inside the group,
# pinned to CPUS; with PATH empty, only pinned
cg_exec() {
	local path=$1 cpus=$2
	shift 2
	if [ -n "$path" ]; then
		exec bash -c 'echo $$ >"$0/cgroup.procs" && exec taskset -c "$@"' \
			"$path" "$cpus" "$@"
	fi
	exec taskset -c "$cpus" "$@"
}

# bench_upstream DIR N PORT: the upstream every benchmark forwards to, an
# NSD on 127.0.0.1@PORT serving perf.zz with the N names n0 ... n(N-1) (A
# records, TTL one day); DIR/names gets the dnsperf query file, one
# "nI.perf.zz A" line per name
bench_upstream() {
	local dir=$1 n=$2 port=$3
	mkdir -p "$dir"
	{
		echo "\$ORIGIN perf.zz."
		echo "\$TTL 86400"
		echo "@ IN SOA ns.perf.zz. hostmaster.perf.zz. 1 3600 900 604800 86400"
		echo "@ IN NS ns.perf.zz."
		echo "ns IN A 127.0.0.1"
		awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++)
			printf "n%d IN A 10.%d.%d.%d\n", i, int(i / 65536) % 256, int(i / 256) % 256, i % 256 }'
	} >"$dir/perf.zz.zone"
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "n%d.perf.zz A\n", i }' >"$dir/names"
	NSD_PORT=$port NSD_EXTRA=$BENCH_NSD_EXTRA nsd_start upstream 127.0.0.1 "perf.zz.=$dir/perf.zz.zone"
}

# bench_percentile P FILE: the P-th percentile of the numbers in FILE
bench_percentile() {
	sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		i = int(NR * p / 100 + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR
		print v[i] }'
}

# bench_measure PORT DURATION RATE PIDS CG OUTDIR TAG: one dnsperf run.
# RATE 0 = as fast as it goes. PIDS: the server's PIDs (workers included).
# Prints: completed lost qps avg_ms p99_ms cpu_s us_per_answer
#         answers_per_cpu_s rss_kb throttled_periods
bench_measure() {
	local port=$1 dur=$2 rate=$3 pids=$4 cg=$5 out=$6/$7 t0 t1 thr0 thr1 q=()
	[ "$rate" != 0 ] && q=(-Q "$rate")
	t0=$(cpu_ticks $pids); thr0=$(cg_throttled "$cg")
	# -c 32 sockets (spread over SO_REUSEPORT workers), up to 2000
	# outstanding so that a throttled server's stall does not starve the
	# load, -v for each query's latency (the 99th percentile)
	# (in the background and waited for, so that a ^C is seen at once)
	( cg_exec "" "$BENCH_CLIENT_CPUS" dnsperf -s 127.0.0.1 -p "$port" \
		-d "$BENCH_QFILE" -c 32 -q 2000 -t 2 -l "$dur" "${q[@]}" -v ) \
		>"$out.perf" 2>&1 &
	wait $!
	t1=$(cpu_ticks $pids); thr1=$(cg_throttled "$cg")
	awk '/^> / { print $NF * 1000 }' "$out.perf" >"$out.lat"
	local done lost qps avg p99 rss
	done=$(sed -n 's/^ *Queries completed: *\([0-9]*\).*/\1/p' "$out.perf")
	lost=$(sed -n 's/^ *Queries lost: *\([0-9]*\).*/\1/p' "$out.perf")
	qps=$(sed -n 's/^ *Queries per second: *\([0-9.]*\).*/\1/p' "$out.perf")
	avg=$(sed -n 's/^ *Average Latency (s): *\([0-9.]*\).*/\1/p' "$out.perf")
	p99=$(bench_percentile 99 "$out.lat")
	rss=$(rss_kb $pids)
	rm -f "$out.lat"
	awk -v d="${done:-0}" -v l="${lost:-0}" -v q="${qps:-0}" -v a="${avg:-0}" \
		-v p="$p99" -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v r="$rss" \
		-v th=$(( ${thr1:-0} - ${thr0:-0} )) 'BEGIN {
		cpu = t / hz
		printf "%d\t%d\t%.0f\t%.3f\t%s\t%.2f\t%.2f\t%.0f\t%d\t%d\n", d, l, q, a * 1000, p,
			cpu, (d > 0 ? cpu * 1e6 / d : 0), (cpu > 0 ? d / cpu : 0), r, th }'
}

# ------------------------------------------------- misses (bench/miss, bench/flood)

# bench_wild_zone FILE ZONE: a zone file for ZONE in which every name
# exists: a wildcard A and AAAA (TTL one day) below an apex with an SOA
# and one NS; the upstream of the miss and flood benchmarks, whose
# queries are unique random names under ZONE
bench_wild_zone() {
	local file=$1 z=$2
	{
		echo "\$ORIGIN $z."
		echo "\$TTL 86400"
		echo "@ IN SOA ns.$z. hostmaster.$z. 1 3600 900 604800 86400"
		echo "@ IN NS ns.$z."
		echo "ns IN A 127.0.0.1"
		echo "* IN A 10.9.9.9"
		echo "* IN AAAA 2001:db8::9"
	} >"$file"
}

# bench_random_names SEED N ZONE: N dnsperf lines "LABEL.ZONE A", each
# name unique (a random 32-bit prefix and the line number), the same list
# for the same SEED (awk's srand), so the servers of one round get the
# same names and a rerun repeats them
bench_random_names() {
	awk -v seed="$1" -v n="$2" -v z="$3" 'BEGIN { srand(seed)
		for (i = 0; i < n; i++)
			printf "r%08x-%x.%s A\n", int(rand() * 4294967296), i, z }'
}

# cpu_ns PID...: CPU time in nanoseconds, summed over every thread of the
# processes (/proc/PID/task/TID/schedstat, first field: time on a CPU;
# finer than cpu_ticks' clock ticks, but a thread that exited no longer
# counts: the resolvers keep theirs for their whole life)
cpu_ns() {
	local p
	for p in "$@"; do
		cat /proc/"$p"/task/*/schedstat 2>/dev/null
	done | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# perf_field FILE WHAT: a number from dnsperf's summary: completed, lost,
# sent, qps, avg (average latency, ms), or an rcode (NOERROR, SERVFAIL,
# NXDOMAIN, REFUSED: how many answers had it; 0 when none)
perf_field() {
	case "$2" in
	completed) sed -n 's/^ *Queries completed: *\([0-9]*\).*/\1/p' "$1" ;;
	lost) sed -n 's/^ *Queries lost: *\([0-9]*\).*/\1/p' "$1" ;;
	sent) sed -n 's/^ *Queries sent: *\([0-9]*\).*/\1/p' "$1" ;;
	qps) sed -n 's/^ *Queries per second: *\([0-9.]*\).*/\1/p' "$1" ;;
	avg) sed -n 's/^ *Average Latency (s): *\([0-9.]*\).*/\1/p' "$1" |
		awk '{ printf "%.3f\n", $1 * 1000 }' ;;
	*) sed -n 's/^ *Response codes: *//p' "$1" | tr ',' '\n' |
		awk -v c="$2" '$1 == c { n = $2 } END { print n + 0 }' ;;
	esac | head -1
}

# resolver_wait PORT NAME PID: wait (up to 10 s) for an answer to NAME on
# 127.0.0.1@PORT while PID lives; 1 if none
resolver_wait() {
	local i
	for i in $(seq 100); do
		kill -0 "$3" 2>/dev/null || return 1
		dig +time=1 +tries=1 @127.0.0.1 -p "$1" "$2" A 2>/dev/null |
			grep -q 'status: NOERROR' && return 0
		sleep 0.1
	done
	return 1
}

# median FILE: the median of the numbers in FILE (one per line)
median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# MC_* : reading the counter file of bench/malloc_count.so (its layout is
# in bench/malloc_count.c: uint64 words; 0 magic, 1 malloc, 2 calloc,
# 3 realloc, 4 free, 5 aligned, 6 bytes, 7 stacks lost, 8 depth, then
# 16384 sites of 8 words: key, count, 6 return addresses)

# mc_counts FILE: "allocations frees bytes" so far
mc_counts() {
	od -An -t u8 -v -N 72 "$1" 2>/dev/null | tr -s ' \n' '  ' |
		awk '{ printf "%.0f %.0f %.0f\n", $2 + $3 + $4 + $6, $5, $7 }'
}

# mc_sites FILE MAPS BIN TOP [BEFORE]: the TOP most frequent allocating call stacks
# recorded with MALLOC_COUNT_SITES=1, as "count frame < frame < ..." with
# each return address named by the nearest preceding symbol of its object
# (nm, then nm -D for a stripped library; MAPS is a copy of the process's
# /proc/PID/maps taken before it exited). Frames of BIN are shown bare,
# others as function@library; an address in an object without symbols
# (a stripped binary) as ?@object. With BEFORE (a copy of FILE taken
# earlier), only the calls made since then.
mc_sites() {
	local file=$1 maps=$2 bin=$3 top=$4 before=$5 tmp obj f
	tmp=$(mktemp -d /tmp/petrel-mcsites.XXXXXX) || return 1
	for f in "$file" ${before:+"$before"}; do
	od -An -t x8 -v -j 72 "$f" | awk '
	function h2d(x,  i, v) { v = 0
		for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v }
	{ for (i = 1; i <= NF; i++) w[n++] = $i }
	END { for (s = 0; s + 7 < n; s += 8) if (w[s] != "0000000000000000") {
		printf "%d %s", h2d(w[s + 1]), w[s]; for (j = 2; j < 8; j++) printf " %s", w[s + j]; print "" } }' \
		>"$tmp/sites.${f##*/}"
	done
	# the calls made since the BEFORE snapshot: counts by key, less the old
	if [ -n "$before" ]; then
		awk 'FILENAME == ARGV[1] { old[$2] = $1; next }
		{ $1 -= old[$2]; if ($1 > 0) print }' "$tmp/sites.${before##*/}" "$tmp/sites.${file##*/}"
	else
		cat "$tmp/sites.${file##*/}"
	fi | cut -d' ' -f1,3- | sort -rn | head -n 2000 >"$tmp/sites"
	# every address: its object and its address in that object's file
	awk 'FILENAME == ARGV[1] { split($1, r, "-"); st[++m] = r[1]; en[m] = r[2]; off[m] = $3
			ob[m] = $6; next }
	function h2d(x,  i, v) { x = tolower(x); v = 0
		for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v }
	{ for (i = 2; i <= NF; i++) if ($i != "0000000000000000" && !seen[$i]++) {
		a = h2d($i); o = ""
		for (k = 1; k <= m; k++) if (a >= h2d(st[k]) && a < h2d(en[k])) {
			o = ob[k]; rel = a - h2d(st[k]) + h2d(off[k]); break }
		if (o == "") print $i, "?", 0; else printf "%s %s %.0f\n", $i, o, rel - 1 } }' \
		"$maps" "$tmp/sites" >"$tmp/addrs"
	# name each address with its object's symbol table
	: >"$tmp/names"
	for obj in $(awk '$2 != "?" { print $2 }' "$tmp/addrs" | sort -u); do
		{ nm -n --defined-only "$obj" 2>/dev/null | grep -q . &&
			nm -n --defined-only "$obj" 2>/dev/null ||
			nm -D -n --defined-only "$obj" 2>/dev/null; } |
			awk '$2 ~ /^[TtWw]$/' >"$tmp/syms"
		awk -v obj="$obj" -v bin="$bin" '
		function h2d(x,  i, v) { x = tolower(x); v = 0
			for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
			return v }
		FILENAME == ARGV[1] { sa[++ns] = h2d($1); sn[ns] = $3; next }
		$2 == obj { best = "?"
			lo = 1; hi = ns	# the last symbol at or below the address
			while (lo <= hi) { mid = int((lo + hi) / 2)
				if (sa[mid] <= $3 + 0) { best = sn[mid]; lo = mid + 1 } else hi = mid - 1 }
			b = obj; sub(/.*\//, "", b); sub(/\.so.*/, "", b)
			if (obj == bin && best != "?") print $1, best; else print $1, best "@" b }' \
			"$tmp/syms" "$tmp/addrs" >>"$tmp/names"
	done
	# stacks that name the same functions (other call sites in them) add up
	awk 'FILENAME == ARGV[1] { nm[$1] = $2; next }
	{ s = ""; sep = ""
		for (i = 2; i <= NF; i++) if ($i != "0000000000000000") {
			s = s sep ($i in nm ? nm[$i] : "?"); sep = " < " }
		n[s] += $1 }
	END { for (s in n) print n[s], s }' "$tmp/names" "$tmp/sites" | sort -rn | head -n "$top"
	rm -rf "$tmp"
}

# bench_pin CPUS PID: pin a running process, its threads and its children
# (NSD's server and xfrd processes) to CPUS
bench_pin() {
	local p
	for p in "$2" $(children_of "$2"); do
		taskset -a -p -c "$1" "$p" >/dev/null 2>&1
	done
	return 0
}

# cg_weight PATH: a large CPU weight for the group (v1 cpu.shares 8192,
# v2 cpu.weight 800: eight times a plain process or session). The miss and
# flood benchmarks run at a fixed rate on a machine other work shares: with
# the weight the servers, NSD and dnsperf get the CPU when they are ready
# instead of queueing behind a compiler (the load is bounded, so they take
# no more than they need)
cg_weight() {
	[ -n "$1" ] || return 0
	if [ "$CG_VER" = 2 ]; then echo 800 >"$1/cpu.weight"
	else echo 8192 >"$1/cpu.shares"; fi
}

# cg_move PATH PID: move a running process (and its children) into the group
cg_move() {
	local p
	[ -n "$1" ] || return 0
	for p in "$2" $(children_of "$2"); do
		echo "$p" >"$1/cgroup.procs" 2>/dev/null
	done
	return 0
}

# bench_port_free IP PORT: 0 if nothing listens on IP:PORT (UDP), else a
# message and 1 (two benchmarks on the same addresses would answer each
# other's queries: NSD binds with SO_REUSEADDR and would not notice)
bench_port_free() {
	if ss -Hlun 2>/dev/null | awk '{ print $4 }' | grep -qx "$1:$2"; then
		echo "$1:$2 is in use (another benchmark running?); set the port variables in --help" >&2
		return 1
	fi
	return 0
}
