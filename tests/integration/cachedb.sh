#!/bin/bash
# tests/integration/cachedb.sh - the cachedb module on a real redis-server
# (issue 23): three petrel instances on loopback share one Redis.
#
#   1. p1 resolves names through NSD and writes them to Redis.
#   2. NSD is stopped: p2 answers a name p1 resolved, from Redis, with its
#      TTL lowered by the time elapsed since p1 stored it.
#   3. After its TTL has run out the name is not served (SERVFAIL: the
#      authority is down and Redis holds only an expired copy); p3, with
#      serve-expired, gives the expired copy with serve-expired-reply-ttl
#      and the Extended DNS Error "Stale Answer".
#   4. redis-expire-records: the key's Redis TTL follows the record's.
#   5. Redis killed: p2's cached answers continue (dnsperf, no loss), new
#      names still resolve, p2's log says Redis is down once.
#   6. Redis back: p2 reconnects by itself, logs it, and writes again.
#   7. cachedb-check-when-serve-expired (p4 yes, p5 no; serve-expired
#      without client timeout): an expired local entry is replaced by a
#      fresh copy from Redis, or (off) given at once as stale.
#
# Addresses: 127.0.140.0/24 (Redis .1:6379, NSD .2:53, petrels .11-.15
# port 5301). Needs root (NSD on port 53), nsd, redis-server, dig, dnsperf.
# Runs in about 30 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
: "${PETREL:=$HERE/../../petrel}"
: "${REDIS_SERVER:=redis-server}"
: "${REDIS_CLI:=redis-cli}"
NET=127.0.140
RIP=$NET.1
RPORT=6379
NSIP=$NET.2
PPORT=5301

for t in "$PETREL" "$NSD" dig dnsperf python3; do
	command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
command -v "$REDIS_SERVER" >/dev/null 2>&1 || { echo "SKIP: redis-server not found"; exit 77; }
"$PETREL" -V | grep -q '^hiredis: [0-9]' || { echo "SKIP: petrel built without hiredis"; exit 77; }

it_suite cachedb
W=$IT_WORK

# ---- the authority: a root zone that holds the test names itself
cat > "$W/root.zone" <<ZONE
\$TTL 3600
.            86400 IN SOA a.root. hostmaster.root. 1 1800 900 604800 86400
.            86400 IN NS a.root.
a.root.      86400 IN A $NSIP
a.cdb.          20 IN A 192.0.2.1
b.cdb.           4 IN A 192.0.2.2
c.cdb.           4 IN A 192.0.2.3
d.cdb.          40 IN A 192.0.2.4
e.cdb.        3600 IN A 192.0.2.5
f.cdb.        3600 IN A 192.0.2.6
g.cdb.        3600 IN A 192.0.2.7
h.cdb.        3600 IN A 192.0.2.8
ZONE
printf '.  3600000 NS a.root.\na.root. 3600000 A %s\n' "$NSIP" > "$W/root.hints"

start_nsd() { nsd_start root "$NSIP" ".=$W/root.zone"; }
stop_nsd() {
	local f="$W/nsd-root/nsd.pid" p i
	[ -s "$f" ] || return 0
	p=$(cat "$f")
	kill -TERM "$p" 2>/dev/null
	for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null
	rm -f "$f"
}

# ---- Redis
start_redis() {
	local i
	"$REDIS_SERVER" --bind "$RIP" --port "$RPORT" --save "" \
		--appendonly no --dir "$W" --daemonize no \
		--logfile "$W/redis.log" &
	REDIS_PID=$!
	it_track "$REDIS_PID"
	for i in $(seq 50); do
		"$REDIS_CLI" -h "$RIP" -p "$RPORT" PING 2>/dev/null | grep -q PONG && return 0
		sleep 0.1
	done
	echo "redis-server did not start" >&2
	return 1
}
rcli() { "$REDIS_CLI" -h "$RIP" -p "$RPORT" "$@"; }
# key NAME TYPE: the cachedb key (cachedb/cachedb_record.h) with the
# default secret-seed
key() {
	python3 - "$1" "$2" <<'PY'
import hashlib, sys
name, qtype = sys.argv[1].rstrip('.').lower(), int(sys.argv[2])
wire = b''.join(bytes([len(l)]) + l.encode() for l in name.split('.')) + b'\0'
print(hashlib.sha256(wire + qtype.to_bytes(2, 'big') + b'\0\1' + b'default').hexdigest().upper())
PY
}

# ---- petrel N EXTRA...: a petrel on 127.0.140.1N with cachedb
petrel_conf() {
	local n=$1 d="$W/p$1"; shift
	mkdir -p "$d"
	{
		echo "server:"
		echo "  interface: $NET.1$n"
		echo "  port: $PPORT"
		echo "  do-ip6: no"
		echo "  num-threads: 1"
		echo "  do-daemonize: no"
		echo "  username: \"\""
		echo "  chroot: \"\""
		echo "  directory: \"$d\""
		echo "  pidfile: \"$d/resolver.pid\""
		echo "  logfile: \"\""
		echo "  use-syslog: no"
		echo "  verbosity: 1"
		echo "  access-control: 127.0.0.0/8 allow"
		echo "  do-not-query-localhost: no"
		echo "  qname-minimisation: no"
		echo "  root-hints: \"$W/root.hints\""
		echo "  module-config: \"cachedb iterator\""
		for l in "$@"; do case "$l" in server:*) echo "  ${l#server:}";; esac; done
		echo "cachedb:"
		echo "  backend: redis"
		echo "  redis-server-host: $RIP"
		echo "  redis-server-port: $RPORT"
		echo "  redis-timeout: 100"
		for l in "$@"; do case "$l" in cachedb:*) echo "  ${l#cachedb:}";; esac; done
	} > "$d/petrel.conf"
}
petrel_up() {
	local n=$1 i
	"$PETREL" -d -c "$W/p$n/petrel.conf" >>"$W/p$n/log" 2>&1 &
	eval "P${n}_PID=$!"
	it_track "$!"
	for i in $(seq 100); do
		dig +time=1 +tries=1 @"$NET.1$n" -p "$PPORT" localhost. A >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "petrel p$n did not start; log:" >&2
	tail -20 "$W/p$n/log" >&2
	return 1
}
# q N NAME [dig options]: ask petrel N; prints dig's output
q() { local n=$1 name=$2; shift 2; dig +time=3 +tries=1 @"$NET.1$n" -p "$PPORT" "$name" A "$@"; }
# ttl_of N NAME: the TTL of the first answer record
ttl_of() { q "$1" "$2" +noall +answer | awk '{ print $2; exit }'; }
status_of() { q "$1" "$2" | sed -n 's/.*status: \([A-Z]*\),.*/\1/p'; }

start_redis || exit 1
start_nsd || exit 1
petrel_conf 1
petrel_conf 2 "cachedb:redis-expire-records: yes"
petrel_conf 3 "server:serve-expired: yes" "server:serve-expired-reply-ttl: 30" \
	"server:serve-expired-client-timeout: 0"
petrel_up 1 && petrel_up 2 && petrel_up 3 || exit 1

# ---- 1. p1 resolves; the answers land in Redis
T0=$(date +%s)
for n in a b c; do
	[ "$(status_of 1 $n.cdb)" = NOERROR ] || bad "p1 resolves $n.cdb"
done
[ "$(status_of 2 d.cdb)" = NOERROR ] || bad "p2 resolves d.cdb"
[ "$(status_of 2 e.cdb)" = NOERROR ] || bad "p2 resolves e.cdb"
sleep 0.3
for n in a b c d e; do
	if [ "$(rcli EXISTS "$(key $n.cdb 1)")" = 1 ]; then ok "$n.cdb is in Redis"
	else bad "$n.cdb is not in Redis (key $(key $n.cdb 1))"; fi
done

# ---- 4. redis-expire-records (p2): the key expires with the record
rt=$(rcli TTL "$(key d.cdb 1)")
lo=$((40 - ($(date +%s) - T0) - 1))
if [ "$rt" -ge $lo ] 2>/dev/null && [ "$rt" -le 40 ]; then ok "redis TTL of d.cdb follows its DNS TTL ($rt s of 40, $((40 - lo - 1)) s after)"
else bad "redis TTL of d.cdb is '$rt', want $lo..40"; fi
rt=$(rcli TTL "$(key a.cdb 1)")
if [ "$rt" = -1 ]; then ok "without redis-expire-records (p1) the key has no Redis expiry"
else bad "redis TTL of a.cdb (p1) is '$rt', want -1"; fi

# ---- 2. authority down: p2 answers a.cdb from Redis, TTL lowered
stop_nsd
sleep 3
T1=$(date +%s)
out=$(q 2 a.cdb)
ttl=$(echo "$out" | awk '/^a\.cdb\./ { print $2; exit }')
el=$((T1 - T0))
if echo "$out" | grep -q 'status: NOERROR' && echo "$out" | grep -q '192\.0\.2\.1'; then
	ok "p2 answers a.cdb from Redis with the authority down"
else bad "p2 does not answer a.cdb from Redis: $out"; fi
# stored at T0 (to the second) with 20: now 20 - elapsed, within a second
if [ -n "$ttl" ] && [ "$ttl" -le $((20 - el + 1)) ] && [ "$ttl" -ge $((20 - el - 1)) ] && [ "$ttl" -lt 20 ]; then
	ok "its TTL is lowered by the time elapsed: $ttl after ${el}s (stored with 20)"
else bad "a.cdb TTL '$ttl' after ${el}s, want about $((20 - el))"; fi

# ---- 3. past the TTL: not served; with serve-expired: stale, marked
while [ $(( $(date +%s) - T0 )) -lt 5 ]; do sleep 0.2; done
st=$(q 2 b.cdb +time=15 | sed -n 's/.*status: \([A-Z]*\),.*/\1/p')
if [ "$st" = SERVFAIL ]; then ok "b.cdb (TTL 4) is not served after its expiry (SERVFAIL)"
else bad "b.cdb after its expiry: status '$st', want SERVFAIL"; fi
if [ "$(rcli EXISTS "$(key b.cdb 1)")" = 1 ]; then ok "(the expired b.cdb is still in Redis: it was refused by its stored expiry)"
else bad "b.cdb was not in Redis any more: the check above proved nothing"; fi
out=$(dig +time=15 +tries=1 @"$NET.13" -p "$PPORT" c.cdb A)
if echo "$out" | grep -q 'status: NOERROR' && echo "$out" | grep -Eq '^c\.cdb\.[[:space:]]+30[[:space:]]' &&
	echo "$out" | grep -q 'EDE: 3'; then
	ok "p3 (serve-expired) gives the expired c.cdb with TTL 30 and EDE 3 (Stale Answer)"
else bad "p3 serve-expired answer for c.cdb: $out"; fi

# ---- 5. Redis killed: cached answers go on, new names resolve, logged once
start_nsd || exit 1
[ "$(status_of 2 e.cdb)" = NOERROR ] || bad "p2 e.cdb before the kill"
printf 'e.cdb A\n' > "$W/perf.txt"
perf() { dnsperf -s "$NET.12" -p "$PPORT" -d "$W/perf.txt" -l 3 -Q 2000 -t 1 2>&1; }
before=$(perf)
kill -KILL "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null
after=$(perf)
lost=$(echo "$after" | sed -n 's/.*Queries lost: *\([0-9]*\).*/\1/p')
qb=$(echo "$before" | sed -n 's/.*Queries per second: *\([0-9.]*\).*/\1/p')
qa=$(echo "$after" | sed -n 's/.*Queries per second: *\([0-9.]*\).*/\1/p')
if [ "$lost" = 0 ]; then ok "with Redis killed, cached answers go on: no loss (qps before $qb, after $qa, at -Q 2000)"
else bad "queries lost with Redis killed: '$lost'"; echo "$after"; fi
# (NSD was stopped in step 2, so petrel knows its server as down: the
# first query may get SERVFAIL at once while the one background probe
# finds it back, issue 17; a few tries a second apart)
t=$(date +%s%N)
for i in 1 2 3 4 5 6 7 8 9 10; do
	st=$(status_of 2 f.cdb)
	[ "$st" = NOERROR ] && break
	sleep 1
done
t=$(( ($(date +%s%N) - t) / 1000000 ))
if [ "$st" = NOERROR ]; then ok "a new name resolves with Redis down (${t} ms, try $i)"
else bad "f.cdb with Redis down: '$st' after $i tries"; fi
sleep 1
n=$(grep -c 'cachedb: redis .* is down' "$W/p2/log")
if [ "$n" = 1 ]; then ok "p2's log says Redis is down once: $(grep 'is down' "$W/p2/log" | head -1)"
else bad "p2 logged 'is down' $n times"; grep 'cachedb' "$W/p2/log" | head; fi

# ---- 6. Redis back: used again without a restart
start_redis || exit 1
for i in $(seq 60); do
	grep -q 'cachedb: redis .* is back' "$W/p2/log" && break
	sleep 0.1
done
if grep -q 'cachedb: redis .* is back' "$W/p2/log"; then ok "p2 logs Redis back"
else bad "p2 did not log Redis back"; fi
[ "$(status_of 2 g.cdb)" = NOERROR ] || bad "p2 resolves g.cdb"
sleep 0.3
if [ "$(rcli EXISTS "$(key g.cdb 1)")" = 1 ]; then ok "p2 writes to Redis again (g.cdb) without a restart"
else bad "g.cdb is not in the new Redis"; fi
stop_nsd
out=$(q 1 g.cdb)
if echo "$out" | grep -q '192\.0\.2\.7'; then ok "p1 answers g.cdb from the new Redis with the authority down"
else bad "p1 g.cdb from Redis: $out"; fi

# ---- 7. cachedb-check-when-serve-expired: with serve-expired and no
# client timeout, an expired local entry is not served at once: Redis is
# asked first, and its fresh copy wins (p4, the default yes); with it off
# (p5) the expired entry is given at once (EDE 3, TTL 1: the reply TTL of
# 30 capped at the record's own TTL, as Unbound). Both keep the
# name locally for 1 s only (cache-max-ttl), Redis has it for an hour,
# and the authority is down when they are asked again.
start_nsd || exit 1
for n in 4 5; do
	petrel_conf $n "server:serve-expired: yes" "server:serve-expired-reply-ttl: 30" \
		"server:serve-expired-client-timeout: 0" "server:cache-max-ttl: 1"
done
echo "  cachedb-check-when-serve-expired: no" >> "$W/p5/petrel.conf"
petrel_up 4 && petrel_up 5 || exit 1
[ "$(status_of 1 h.cdb)" = NOERROR ] || bad "p1 resolves h.cdb"
sleep 0.3
[ "$(rcli EXISTS "$(key h.cdb 1)")" = 1 ] || bad "h.cdb is not in Redis"
for n in 4 5; do
	[ "$(status_of $n h.cdb)" = NOERROR ] || bad "p$n h.cdb (from Redis)"
done
stop_nsd
sleep 2.2
out=$(q 4 h.cdb)
ttl=$(echo "$out" | awk '/^h\.cdb\./ { print $2; exit }')
if echo "$out" | grep -q 'status: NOERROR' && echo "$out" | grep -q '192\.0\.2\.8' &&
	[ -n "$ttl" ] && [ "$ttl" -le 1 ] && ! echo "$out" | grep -q 'EDE: 3'; then
	# (TTL 1: cache-max-ttl caps the fresh copy too; the authority is
	# down, so only Redis can have given a fresh answer)
	ok "check-when-serve-expired: p4's expired h.cdb is replaced by Redis's fresh copy (TTL $ttl, no EDE)"
else bad "p4 (check-when-serve-expired yes) h.cdb: $out"; fi
out=$(q 5 h.cdb)
if echo "$out" | grep -q 'status: NOERROR' && echo "$out" | grep -Eq '^h\.cdb\.[[:space:]]+1[[:space:]]' &&
	echo "$out" | grep -q 'EDE: 3'; then
	ok "check-when-serve-expired: no: p5 gives its expired h.cdb at once (TTL 1, EDE 3)"
else bad "p5 (check-when-serve-expired no) h.cdb: $out"; fi

finish
