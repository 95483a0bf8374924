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
	NSD_PORT=$port nsd_start upstream 127.0.0.1 "perf.zz.=$dir/perf.zz.zone"
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
