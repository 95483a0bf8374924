#!/usr/bin/env bash
# tests/integration/opts.sh - Unbound options once accepted and ignored
# (issue 31, "Options"), checked on a running petrel (`make check-opts`).
#
# usage: tests/integration/opts.sh [-k]
#   -k  keep the work directory (configs, logs)
# environment: PETREL=path, PETREL_CONTROL=path
#
# Addresses: petrel on 127.0.250.1 ports 61990 (defaults) and 61991 (the
# options set otherwise); a silent server (silent.pl) on 127.0.250.2
# port 53 (root needed) that reads queries and never answers, forwarded
# to for sil.zz.
#
# 1. log-identity: the log lines carry the name given ("petrel-east[pid"),
#    and without the option "petrel[pid"; log-destaddr: the log-queries
#    and log-replies lines end with " on udp 127.0.250.1 61991" (tcp for
#    a query over TCP).
# 2. udp-connect: while a query to the silent server waits, petrel's
#    upstream UDP socket has the server as its peer (ss shows
#    127.0.250.2:53); with udp-connect: no its peer is "*".
# 3. statistics-inhibit-zero: with extended-statistics, stats_noreset
#    has no num.query.type.MX line by default, and num.query.type.MX=0
#    with statistics-inhibit-zero: no.
# 4. tcp-connection-limit: with "127.0.250.0/24 1", a second TCP
#    connection from 127.0.250.9 is closed at once while the first stays
#    open and is answered; another netblock is not limited; once the
#    first closes, a new one from the netblock is answered.
# 5. msg-buffer-size: with 4096, a 5000-byte query over TCP closes the
#    connection; with the default it is answered.
# Runs a few seconds, stops everything it started on exit (lib.sh). Exit
# 0 when every check passed, 1 otherwise, 77 when a tool is missing or
# without root.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

while [ $# -gt 0 ]; do
	case "$1" in
	-k) IT_KEEP=1 ;;
	*) echo "usage: $0 [-k]" >&2; exit 2 ;;
	esac
	shift
done

for t in dig ss perl python3; do
	if ! command -v $t >/dev/null; then
		echo "opts: $t not found, skipped"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "opts: needs root (a server on port 53), skipped"
	exit 77
fi

RES_IP=127.0.250.1
SIL_IP=127.0.250.2
it_suite opts

# conf NAME PORT EXTRA-LINES: write $IT_WORK/NAME.conf
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
	extended-statistics: yes
	local-data: "here.zz. 300 IN A 192.0.2.1"
$3
remote-control:
	control-enable: yes
	control-interface: "$IT_WORK/$1.ctl"
	control-use-cert: no
forward-zone:
	name: "sil.zz."
	forward-addr: $SIL_IP
EOF
}

# start NAME: run petrel on NAME.conf, wait until it answers
start() {
	"$PETREL" -d -c "$IT_WORK/$1.conf" 2>>"$IT_WORK/$1.err" &
	it_track $!
	for i in $(seq 50); do
		[ -S "$IT_WORK/$1.ctl" ] && break
		sleep 0.1
	done
}

ctl() {
	"$PETREL_CONTROL" -c "$IT_WORK/$1.conf" "${@:2}"
}

# a root hints file naming a loopback server (nothing leaves the machine)
printf '. 3600000 NS a.root.zz.\na.root.zz. 3600000 A %s\n' "$SIL_IP" \
	> "$IT_WORK/root.hints"

perl "$here/silent.pl" $SIL_IP > "$IT_WORK/silent.out" &
it_track $!

conf plain 61990 ""
conf set 61991 "	log-identity: petrel-east
	udp-connect: no
	statistics-inhibit-zero: no
	tcp-connection-limit: 127.0.250.0/24 1
	log-queries: yes
	log-replies: yes
	log-destaddr: yes
	msg-buffer-size: 4096"
start plain
start set

# 1. log-identity
if dig @$RES_IP -p 61991 here.zz A +short +time=2 +tries=1 | grep -q 192.0.2.1 &&
	grep -q ' petrel-east\[' "$IT_WORK/set.log" &&
	! grep -q ' petrel\[' "$IT_WORK/set.log"; then
	ok "log-identity: lines carry petrel-east"
else
	fail "log-identity: $(head -2 "$IT_WORK/set.log")"
fi
if grep -q ' petrel\[' "$IT_WORK/plain.log"; then
	ok "no log-identity: lines carry petrel"
else
	fail "no log-identity: $(head -2 "$IT_WORK/plain.log")"
fi

# 1b. log-destaddr: query and reply lines end with where the query came
dig @$RES_IP -p 61991 here.zz A +tcp +time=2 +tries=1 >/dev/null
if grep -q " here.zz. A IN on udp $RES_IP 61991\$" "$IT_WORK/set.log" &&
	grep -q " here.zz. A IN NOERROR [0-9.]* [01] [0-9]* on udp $RES_IP 61991\$" "$IT_WORK/set.log" &&
	grep -q " here.zz. A IN NOERROR [0-9.]* [01] [0-9]* on tcp $RES_IP 61991\$" "$IT_WORK/set.log"; then
	ok "log-destaddr: lines end with 'on udp|tcp $RES_IP 61991'"
else
	fail "log-destaddr: $(grep -m3 'here.zz' "$IT_WORK/set.log")"
fi

# 2. udp-connect: the peer of the upstream socket while a query waits
# peer_of PID: the peer column of PID's UDP sockets to the silent server
peer_of() {
	ss -uanp 2>/dev/null | grep "pid=$1," | awk '{print $5}'
}
# upstream_peers PORT PID: every peer PID's UDP sockets had while a
# query to the silent server waited (sampled for about 1.5 s), one a line
upstream_peers() {
	local port=$1 pid=$2 i
	dig @$RES_IP -p "$port" "q$port.sil.zz" A +time=3 +tries=1 >/dev/null &
	for i in $(seq 15); do
		peer_of "$pid"
		sleep 0.1
	done | sort -u
	wait
}
# silent_count PORT: the queries for qPORT.sil.zz the silent server read
silent_count() {
	grep -c "^q$1\.sil\.zz\.$" "$IT_WORK/silent.out" | grep -v '^0$'
}
plain_pid=${IT_PIDS[1]}
set_pid=${IT_PIDS[2]}
peers=$(upstream_peers 61990 "$plain_pid")
if echo "$peers" | grep -q "^$SIL_IP:53$"; then
	ok "udp-connect (default yes): upstream socket connected to $SIL_IP:53"
else
	fail "udp-connect: no connected upstream socket: $(echo $peers)"
fi
peers=$(upstream_peers 61991 "$set_pid")
# the listening socket and the upstream sockets: all unconnected
if [ -n "$(silent_count 61991)" ] && ! echo "$peers" | grep -q "^$SIL_IP:53$"; then
	ok "udp-connect: no: upstream sockets not connected"
else
	fail "udp-connect: no: a connected socket: $(echo $peers)"
fi

# 3. statistics-inhibit-zero
dig @$RES_IP -p 61990 here.zz A +short +time=2 +tries=1 >/dev/null
if ctl plain stats_noreset > "$IT_WORK/plain.stats" &&
	grep -q '^num.query.type.A=' "$IT_WORK/plain.stats" &&
	! grep -q '^num.query.type.MX=' "$IT_WORK/plain.stats"; then
	ok "statistics-inhibit-zero (default yes): no zero type lines"
else
	fail "statistics-inhibit-zero yes: $(grep -c num.query.type "$IT_WORK/plain.stats") type lines"
fi
if ctl set stats_noreset > "$IT_WORK/set.stats" &&
	grep -q '^num.query.type.MX=0$' "$IT_WORK/set.stats"; then
	ok "statistics-inhibit-zero: no prints num.query.type.MX=0"
else
	fail "statistics-inhibit-zero no: no num.query.type.MX=0"
fi

# 4. tcp-connection-limit: one connection per 127.0.250.0/24
python3 - "$RES_IP" 61991 <<'EOF' > "$IT_WORK/tcplimit.out" 2>&1
import socket, struct, sys
ip, port = sys.argv[1], int(sys.argv[2])
def conn(src):
    s = socket.socket()
    s.settimeout(3)
    s.bind((src, 0))
    s.connect((ip, port))
    return s
def query(s):
    q = bytes.fromhex("1234010000010000000000000468657265027a7a0000010001")
    s.sendall(struct.pack("!H", len(q)) + q)
    try:
        h = s.recv(2)
    except OSError:
        return "closed"
    return "answered" if len(h) == 2 else "closed"
# petrel accepts a connection once it has sent data (TCP_DEFER_ACCEPT):
# the first one queries before the second one connects
a = conn("127.0.250.9")
print("first", query(a))
b = conn("127.0.250.9")
print("second", query(b))
c = conn("127.0.0.9")
print("other", query(c))
a.close()
# the close reaches petrel in its own time: a few tries
import time
res = "closed"
for i in range(20):
    d = conn("127.0.250.9")
    res = query(d)
    d.close()
    if res == "answered":
        break
    time.sleep(0.1)
print("after", res)
EOF
if grep -q '^second closed' "$IT_WORK/tcplimit.out" &&
	grep -q '^first answered' "$IT_WORK/tcplimit.out" &&
	grep -q '^other answered' "$IT_WORK/tcplimit.out" &&
	grep -q '^after answered' "$IT_WORK/tcplimit.out"; then
	ok "tcp-connection-limit: the second connection of the netblock closed"
else
	fail "tcp-connection-limit: $(tr '\n' ' ' < "$IT_WORK/tcplimit.out")"
fi

# 5. msg-buffer-size: a 5000-byte query over TCP (an EDNS padding
# option) closes the connection with msg-buffer-size: 4096, and is
# answered with the default
bigq() {
	python3 - "$RES_IP" "$1" <<'EOF'
import socket, struct, sys
ip, port = sys.argv[1], int(sys.argv[2])
q = bytes.fromhex("1234010000010000000000010468657265027a7a0000010001")
opt = b"\x00\x00\x29\x10\x00\x00\x00\x00\x00" + struct.pack("!H", 5004) + \
    struct.pack("!HH", 12, 5000) + b"\x00" * 5000
m = q + opt
s = socket.socket()
s.settimeout(3)
s.bind(("127.0.0.9", 0))    # outside tcp-connection-limit's netblock
s.connect((ip, port))
s.sendall(struct.pack("!H", len(m)) + m)
try:
    h = s.recv(2)
except OSError:
    h = b""
print("answered" if len(h) == 2 else "closed")
EOF
}
big_set=$(bigq 61991)
big_plain=$(bigq 61990)
if [ "$big_set" = closed ] && [ "$big_plain" = answered ]; then
	ok "msg-buffer-size: 4096 closes on a 5000-byte query; the default answers it"
else
	fail "msg-buffer-size: 4096: $big_set, default: $big_plain"
fi

finish
