#!/bin/bash
# tests/integration/shcache.sh - the shared cache of forked workers
# (shared-cache: yes, thread-model: fork), against a real NSD.
#
#   1. 4 forked workers, one set of shared caches: a name asked once, then
#      400 times from 400 source ports (SO_REUSEPORT spreads them over the
#      workers): every worker counts cache hits for it, exactly one worker
#      counts the one cache miss, and NSD counts one query. The same run
#      with per-process caches is shown for comparison (not asserted).
#   2. Reload: SIGHUP with the same config keeps the shared cache (the
#      name is still a hit; NSD sees nothing); SIGHUP with another
#      msg-cache-size rebuilds it (the log says so; the name is a miss).
#   3. Stress: dnsperf asks 20000 distinct names (a 256 kB cache, so
#      evictions never stop) for SHCACHE_STRESS_SECONDS (default 30) while
#      a worker is killed with SIGKILL every second (fixed RANDOM seed
#      picks which); then the consistency checker (petrel-control
#      shared_cache_check) must pass, all 4 workers must be back, and a
#      sample of 300 names must get their own addresses.
#
# Needs root (NSD on 127.0.90.1 port 53), nsd, nsd-control, dig, dnsperf,
# perl. Takes the integration lock; stops everything it started.
# Run: make check-shcache
# (not set -u: lib.sh uses unset positional parameters)
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
: "${PETREL:=petrel}"
: "${PETREL_CONTROL:=petrel-control}"
: "${NSD_CONTROL:=/usr/sbin/nsd-control}"
: "${SHCACHE_STRESS_SECONDS:=30}"
export PETREL PETREL_CONTROL
RESOLVER=petrel
NS_IP=127.0.90.1
PORT=61950
NAMES=20000

it_suite shcache
W=$IT_WORK

# (the address of name nK is 10.K/65536.K/256%256.K%256)

# ---- the zone and NSD (with a control socket, for its query count)
{
	echo '$TTL 3600'
	echo 'sh.zz. IN SOA ns.sh.zz. host.sh.zz. 1 3600 600 86400 3600'
	echo 'sh.zz. IN NS ns.sh.zz.'
	echo "ns.sh.zz. IN A $NS_IP"
	echo 'www.sh.zz. IN A 192.0.2.80'
	awk -v n=$NAMES 'BEGIN { for (k = 0; k < n; k++)
		printf "n%d.sh.zz. IN A 10.%d.%d.%d\n", k, int(k / 65536),
			int(k / 256) % 256, k % 256 }'
} > "$W/sh.zz.zone"
awk -v n=$NAMES 'BEGIN { for (k = 0; k < n; k++) printf "n%d.sh.zz A\n", k }' \
	> "$W/names.txt"
mkdir -p "$W/nsd"
cat > "$W/nsd/nsd.conf" <<EOF
server:
  ip-address: $NS_IP
  port: 53
  username: ""
  chroot: ""
  zonesdir: "$W"
  pidfile: "$W/nsd/nsd.pid"
  database: ""
  zonelistfile: "$W/nsd/zone.list"
  xfrdfile: "$W/nsd/xfrd.state"
  xfrdir: "$W/nsd"
  logfile: "$W/nsd/nsd.log"
  verbosity: 0
  server-count: 1
  hide-version: yes
  reuseport: no
remote-control:
  control-enable: yes
  control-interface: "$W/nsd/nsd.ctl"
zone:
  name: "sh.zz"
  zonefile: "$W/sh.zz.zone"
EOF
/usr/sbin/nsd -d -c "$W/nsd/nsd.conf" > "$W/nsd/nsd.out" 2>&1 &
it_track $!
it_track_pidfile "$W/nsd/nsd.pid"
for i in $(seq 50); do
	dig +time=1 +tries=1 +norecurse @$NS_IP sh.zz SOA 2>/dev/null |
		grep -q 'status: NOERROR' && break
	sleep 0.1
done
nsd_queries() {
	"$NSD_CONTROL" -c "$W/nsd/nsd.conf" stats_noreset 2>/dev/null |
		sed -n 's/^num\.queries=//p'
}
nsd_reset() { "$NSD_CONTROL" -c "$W/nsd/nsd.conf" stats >/dev/null 2>&1; }
[ -n "$(nsd_queries)" ] || { echo "NSD did not start:"; cat "$W/nsd/nsd.out"; exit 1; }

conf() { # conf FILE SHARED MSGSIZE
	resolver_conf "$1" dir="$W" port=$PORT threads=4 model=fork \
		forward="$NS_IP@53" \
		extra="shared-cache: $2\nmsg-cache-size: $3\nmsg-cache-slabs: 4"
}
ctl() { "$PETREL_CONTROL" -c "$W/petrel.conf" "$@"; }
# stat NAME: the values of threadN.NAME, one per line in worker order
stat_threads() { sed -n "s/^thread[0-9]*\.$1=//p" "$W/stats.out"; }
sum() { awk '{ s += $1 } END { print s + 0 }'; }
# the worker processes (the children of the supervisor)
worker_pids() { cat /proc/"$RES_PID"/task/*/children 2>/dev/null | tr ' ' '\n' | grep . ; }
workers() { worker_pids | wc -l; }

# ---- 1. one name, 4 workers
# spread_run SHARED: start petrel, ask www once then from 400 ports; writes
# "<nsd queries> <workers with hits> <workers with misses> <misses>
# answered N of 400" to $W/spread.res (run in this shell: it sets RES_PID)
spread_run() {
	conf "$W/petrel.conf" "$1" 4m
	resolver_start "$W/petrel.conf" "$W/petrel-$1.log" || return 1
	ctl stats > /dev/null
	nsd_reset
	dig +short +tries=1 @127.0.0.1 -p $PORT www.sh.zz A > "$W/first.out"
	perl "$HERE/spread.pl" $PORT www.sh.zz 400 192.0.2.80 > "$W/spread.out"
	ctl stats_noreset > "$W/stats.out"
	echo "$(nsd_queries) $(stat_threads num.cachehits | awk '$1 > 0' | wc -l)" \
		"$(stat_threads num.cachemiss | awk '$1 > 0' | wc -l)" \
		"$(stat_threads num.cachemiss | sum)" "$(cat "$W/spread.out")" \
		> "$W/spread.res"
}
spread_run yes || { bad "petrel with shared-cache did not start"; exit 1; }
r=$(cat "$W/spread.res")
echo "shared cache: nsd queries, workers with hits, workers with misses, misses: $r"
set -- $r
grep -q '^192.0.2.80$' "$W/first.out" && ok "first answer" || bad "first answer: $(cat "$W/first.out")"
[ "$5 $6 $7 $8" = "answered 400 of 400" ] && ok "400 answers from 400 ports" || bad "spread: ${*:5}"
[ "$1" = 1 ] && ok "NSD saw one query" || bad "NSD saw $1 queries"
[ "$2" = 4 ] && ok "all 4 workers answered it from the cache" || bad "$2 workers had hits"
[ "$3 $4" = "1 1" ] && ok "one cache miss, in one worker" || bad "misses: $4 in $3 workers"
stat_threads num.cachehits | tr '\n' ' '; echo "(cache hits per worker)"

# ---- 2. reload keeps it; a size change rebuilds it
nsd_reset
kill -HUP "$RES_PID"
for i in $(seq 50); do
	grep -q 'reload sent to the workers' "$W/petrel-yes.log" && break
	sleep 0.1
done
sleep 0.5
perl "$HERE/spread.pl" $PORT www.sh.zz 20 192.0.2.80 > /dev/null
[ "$(nsd_queries)" = 0 ] && ok "SIGHUP kept the shared cache" ||
	bad "after SIGHUP NSD saw $(nsd_queries) queries"
# dump and load: the shared cache is dumped once (worker 0: the one
# message, not one per worker) and loaded once, however many workers
# there are; the loaded entries answer
ctl dump_cache > "$W/dump.txt"
ndump=$(grep -c '^msg ' "$W/dump.txt")
ctl flush_zone sh.zz > /dev/null
loaded=$(ctl load_cache < "$W/dump.txt")
nsd_reset
perl "$HERE/spread.pl" $PORT www.sh.zz 40 192.0.2.80 > "$W/spread-load.out"
nrr=$(grep -c '^;rrset ' "$W/dump.txt")
# "ok loaded X entries, Y skipped (...)": X + Y entries of the dump (msg
# and ;rrset lines), not one time per worker
set -- $loaded
[ "$ndump" = 1 ] && [ "$1" = ok ] && [ $(( $3 + $5 )) = $((ndump + nrr)) ] &&
[ "$(nsd_queries)" = 0 ] && grep -q 'answered 40 of 40' "$W/spread-load.out" &&
	ok "dump_cache once, load_cache once ($loaded), answered from it" ||
	bad "dump/load: $ndump msg + $nrr rrset lines, '$loaded', NSD $(nsd_queries), $(cat "$W/spread-load.out")"
conf "$W/petrel.conf" yes 256k
kill -HUP "$RES_PID"
for i in $(seq 50); do
	grep -q 'rebuilt the shared message cache' "$W/petrel-yes.log" && break
	sleep 0.1
done
grep -q 'rebuilt the shared message cache of 262144 bytes' "$W/petrel-yes.log" &&
	ok "SIGHUP with a new msg-cache-size rebuilt it (logged)" ||
	bad "no rebuild logged"
for i in $(seq 50); do
	[ "$(workers)" = 4 ] && dig +time=1 +tries=1 @127.0.0.1 -p $PORT localhost. A >/dev/null 2>&1 && break
	sleep 0.1
done
nsd_reset
dig +short +tries=1 @127.0.0.1 -p $PORT www.sh.zz A > /dev/null
[ "$(nsd_queries)" = 1 ] && ok "the rebuilt cache started empty" ||
	bad "after the rebuild NSD saw $(nsd_queries) queries"

# ---- 3. stress with kills (the 256k cache of step 2)
RANDOM=20
dnsperf -s 127.0.0.1 -p $PORT -d "$W/names.txt" -l "$SHCACHE_STRESS_SECONDS" \
	-Q 4000 -c 8 -t 2 > "$W/dnsperf.out" 2>&1 &
DP=$!
it_track $DP
kills=0
end=$(( $(date +%s) + SHCACHE_STRESS_SECONDS ))
while [ "$(date +%s)" -lt "$end" ]; do
	sleep 1
	pids=($(worker_pids))
	[ ${#pids[@]} -gt 0 ] || continue
	kill -KILL "${pids[$((RANDOM % ${#pids[@]}))]}" 2>/dev/null && kills=$((kills + 1))
done
wait $DP
grep -E 'Queries (sent|completed|lost)' "$W/dnsperf.out"
echo "workers killed: $kills"
for i in $(seq 150); do
	[ "$(workers)" = 4 ] && break
	sleep 0.1
done
[ "$(workers)" = 4 ] && ok "all 4 workers back after $kills kills" || bad "$(workers) workers after the kills"
grep -E 'slabs? repaired' "$W/petrel-yes.log" | tail -3
chk=$(ctl shared_cache_check)
echo "shared_cache_check: $chk"
case "$chk" in ok*) ok "consistency checker" ;; *) bad "consistency: $chk" ;; esac
# 300 names (a fixed sample), asked in one dig run; each answer must be
# the name's own address
awk -v n=$NAMES 'BEGIN { srand(7); for (i = 0; i < 300; i++)
	printf "n%d.sh.zz\n", int(rand() * n) }' > "$W/sample.txt"
dig +noall +answer +tries=2 +time=2 @127.0.0.1 -p $PORT \
	$(sed 's/$/ A/' "$W/sample.txt") > "$W/sample.out" 2>&1
right=$(awk 'NR == FNR { want[$1 "."] = 1; next }
	$4 == "A" { k = $1; sub(/^n/, "", k); sub(/\..*/, "", k);
		a = sprintf("10.%d.%d.%d", int(k / 65536), int(k / 256) % 256,
			k % 256);
		if (($1 in want) && $5 == a && !seen[$1]++) n++ }
	END { print n + 0 }' "$W/sample.txt" "$W/sample.out")
want=$(sort -u "$W/sample.txt" | wc -l)
[ "$right" = "$want" ] && ok "$want names after the stress answer right" ||
	bad "$right of $want names answered right"
chk=$(ctl shared_cache_check)
case "$chk" in ok*) ok "consistency checker again: $chk" ;; *) bad "consistency: $chk" ;; esac
resolver_stop

# ---- for comparison: per-process caches (not asserted)
spread_run no && echo "per-process caches: nsd queries, workers with hits," \
	"workers with misses, misses: $(cat "$W/spread.res")"
resolver_stop

finish
