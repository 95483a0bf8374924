#!/usr/bin/env bash
# tests/integration/shm.sh - shm-enable / shm-key (issue 31, "Options"):
# the statistics in System V shared memory, read by Debian's real
# unbound-control stats_shm (`make check-shm`).
#
# usage: tests/integration/shm.sh [-k]
#   -k  keep the work directory (configs, logs)
# environment: PETREL=path, PETREL_CONTROL=path
#
# Addresses: NSD on 127.0.253.2 port 53 (root needed) serving shm.zz;
# petrel on 127.0.253.1 port 62530 (pthreads) and 62531 (fork, when
# built), num-threads 2, shm-key 5253100 / 5253110.
#
# For each thread model: petrel starts with shm-enable, answers a few
# queries (three cache misses, two cache hits, one local-data answer);
# `unbound-control -c u.conf stats_shm` (a config with the same
# num-threads and shm-key) prints total.num.queries and
# total.num.cachemiss equal to what petrel-control stats_noreset gives
# (and above 0), thread0/thread1 add up to the total, and both segments
# (keys shm-key and shm-key+1) are gone after petrel stops. Then: a
# segment left with the key and another size makes petrel log one line,
# run and answer, and leave that segment alone.
# A few seconds. Exit 0 when every check passed, 1 otherwise, 77 when a
# tool is missing or without root.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

while [ $# -gt 0 ]; do
	case "$1" in
	-k) IT_KEEP=1 ;;
	*) echo "usage: $0 [-k]" >&2; exit 2 ;;
	esac
	shift
done

UBC=/usr/sbin/unbound-control
for t in dig ipcs python3 "$UBC" "${NSD:-/usr/sbin/nsd}"; do
	if ! command -v "$t" >/dev/null; then
		echo "shm: $t not found, skipped"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "shm: needs root (NSD on port 53), skipped"
	exit 77
fi

RES_IP=127.0.253.1
NSD_IP=127.0.253.2
it_suite shm

# seg_exists KEY: is there a System V segment with this (decimal) key
seg_exists() {
	ipcs -m | awk -v k="$(printf '0x%08x' "$1")" '$1 == k { f = 1 }
		END { exit !f }'
}

cat > "$IT_WORK/shm.zz.zone" <<EOF
\$ORIGIN shm.zz.
\$TTL 3600
@	IN SOA ns.shm.zz. h.shm.zz. 1 1800 900 604800 300
@	IN NS ns.shm.zz.
ns	IN A $NSD_IP
a	IN A 192.0.2.1
b	IN A 192.0.2.2
c	IN A 192.0.2.3
EOF
printf '. 3600000 NS a.root.zz.\na.root.zz. 3600000 A %s\n' "$NSD_IP" \
	> "$IT_WORK/root.hints"
nsd_start shm $NSD_IP "shm.zz.=$IT_WORK/shm.zz.zone" ||
	{ fail "nsd did not start"; finish; }

# conf NAME PORT MODEL KEY: write $IT_WORK/NAME.conf (petrel) and
# $IT_WORK/NAME.u.conf (unbound-control: the same threads and key)
conf() {
	cat > "$IT_WORK/$1.conf" <<EOF
server:
	interface: $RES_IP@$2
	access-control: 127.0.0.0/8 allow
	do-daemonize: no
	username: ""
	pidfile: ""
	chroot: ""
	directory: "$IT_WORK"
	logfile: "$IT_WORK/$1.log"
	verbosity: 1
	do-ip6: no
	do-not-query-localhost: no
	root-hints: "$IT_WORK/root.hints"
	num-threads: 2
	thread-model: $3
	shm-enable: yes
	shm-key: $4
	local-data: "here.zz. 300 IN A 192.0.2.9"
remote-control:
	control-enable: yes
	control-interface: "$IT_WORK/$1.ctl"
	control-use-cert: no
stub-zone:
	name: "shm.zz."
	stub-addr: $NSD_IP
EOF
	cat > "$IT_WORK/$1.u.conf" <<EOF
server:
	shm-enable: yes
	shm-key: $4
	num-threads: 2
remote-control:
	control-enable: no
EOF
}

# start NAME: run petrel on NAME.conf, wait for its control socket;
# sets PID
start() {
	"$PETREL" -d -c "$IT_WORK/$1.conf" 2>>"$IT_WORK/$1.err" &
	PID=$!
	it_track $PID
	for i in $(seq 50); do
		[ -S "$IT_WORK/$1.ctl" ] && break
		sleep 0.1
	done
}

# stop PID: TERM and wait for it to exit
stop() {
	kill -TERM "$1" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	wait "$1" 2>/dev/null
}

# val FILE NAME: the value of NAME= in FILE
val() { sed -n "s/^$2=//p" "$1"; }

# run NAME PORT MODEL KEY
run() {
	local name=$1 port=$2 model=$3 key=$4 q i n
	conf "$name" "$port" "$model" "$key"
	start "$name"
	for q in a b c a b here; do
		dig @$RES_IP -p "$port" $q.shm.zz A +short +time=3 +tries=1 \
			>/dev/null
	done
	dig @$RES_IP -p "$port" here.zz A +short +time=3 +tries=1 >/dev/null
	# the segments are written every second: wait for the write that
	# follows the queries (at most 10 s)
	for i in $(seq 40); do
		"$PETREL_CONTROL" -c "$IT_WORK/$name.conf" stats_noreset \
			> "$IT_WORK/$name.ctl.txt" 2>&1
		"$UBC" -c "$IT_WORK/$name.u.conf" stats_shm \
			> "$IT_WORK/$name.shm.txt" 2>&1
		n=$(val "$IT_WORK/$name.ctl.txt" total.num.queries)
		[ -n "$n" ] && [ "$n" -ge 7 ] &&
			[ "$n" = "$(val "$IT_WORK/$name.shm.txt" total.num.queries)" ] &&
			break
		sleep 0.25
	done
	local cq cm sq sm t0 t1
	cq=$(val "$IT_WORK/$name.ctl.txt" total.num.queries)
	cm=$(val "$IT_WORK/$name.ctl.txt" total.num.cachemiss)
	sq=$(val "$IT_WORK/$name.shm.txt" total.num.queries)
	sm=$(val "$IT_WORK/$name.shm.txt" total.num.cachemiss)
	if [ -n "$cq" ] && [ "$cq" -ge 7 ] && [ "$sq" = "$cq" ]; then
		ok "$model: stats_shm total.num.queries=$sq as stats_noreset"
	else
		fail "$model: stats_shm total.num.queries='$sq', stats_noreset '$cq'; $(head -3 "$IT_WORK/$name.shm.txt")"
	fi
	if [ -n "$cm" ] && [ "$cm" -ge 3 ] && [ "$sm" = "$cm" ]; then
		ok "$model: stats_shm total.num.cachemiss=$sm as stats_noreset"
	else
		fail "$model: stats_shm total.num.cachemiss='$sm', stats_noreset '$cm'"
	fi
	t0=$(val "$IT_WORK/$name.shm.txt" thread0.num.queries)
	t1=$(val "$IT_WORK/$name.shm.txt" thread1.num.queries)
	if [ -n "$t0" ] && [ -n "$t1" ] && [ $((t0 + t1)) = "$sq" ]; then
		ok "$model: thread0 ($t0) + thread1 ($t1) = total"
	else
		fail "$model: thread0 '$t0' thread1 '$t1' total '$sq'"
	fi
	if seg_exists "$key" && seg_exists $((key + 1)); then
		ok "$model: segments $key and $((key + 1)) exist while petrel runs"
	else
		fail "$model: segments missing while petrel runs: $(ipcs -m)"
	fi
	stop $PID
	if ! seg_exists "$key" && ! seg_exists $((key + 1)); then
		ok "$model: segments removed after petrel stopped"
	else
		fail "$model: segments left after petrel stopped: $(ipcs -m)"
	fi
}

run thr 62530 pthreads 5253100
if petrel_models | grep -qw fork; then
	run frk 62531 fork 5253110
fi

# a segment with the key and another size: one log line, no shm, petrel
# answers, the segment stays
KEY=5253120
python3 - "$KEY" <<'EOF'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.shmget(int(sys.argv[1]), 8, 0o1000 | 0o644) < 0:    # IPC_CREAT
    sys.exit("shmget: errno %d" % ctypes.get_errno())
EOF
conf bad 62532 pthreads $KEY
start bad
if dig @$RES_IP -p 62532 here.zz A +short +time=3 +tries=1 | grep -q 192.0.2.9 &&
	[ "$(grep -c 'shm-enable: cannot create' "$IT_WORK/bad.log")" = 1 ]; then
	ok "a segment of another size: one log line, petrel answers"
else
	fail "a segment of another size: $(grep shm "$IT_WORK/bad.log")"
fi
stop $PID
if seg_exists $KEY; then
	ok "the other segment is left alone"
else
	fail "the segment with key $KEY was removed"
fi
ipcrm -M $KEY 2>/dev/null

finish
