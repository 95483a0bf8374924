#!/usr/bin/env bash
# tests/integration/cookie.sh - DNS Cookies (RFC 7873, RFC 9018) against
# real clients, and the cookie secret commands of petrel-control
# (`make check-cookie`).
#
# usage: tests/integration/cookie.sh [-k]
#   -k  keep the work directory (configs, logs)
# environment: PETREL=path, PETREL_CONTROL=path
#
# Addresses: NSD on 127.0.170.2 port 53 (root needed) serves ck.zz;
# petrel (threads) listens on 127.0.170.1:61980, a second petrel with
# thread-model: fork and 2 workers on 127.0.170.1:61981; both forward
# ck.zz to NSD, with answer-cookie: yes and a cookie-secret-file each.
#
# 1. dig +cookie gets a 24-byte cookie back, its client cookie first,
#    marked "(good)"; kdig +cookie shows the same server cookie; a second
#    query with the full cookie is accepted (counted in
#    num.queries_cookie_valid), on a cached answer too.
# 2. A 9-byte COOKIE option gets FORMERR.
# 3. print_cookie_secrets shows the file's secret ("active : HEX");
#    add_cookie_secret adds a staging one (and writes the file);
#    activate_cookie_secret swaps them: a cookie made with the old secret
#    is still valid, a new one differs; drop_cookie_secret drops the old
#    one: the old cookie is now counted invalid, and answered with a
#    fresh cookie all the same. The error messages are Unbound's.
# 4. The same commands with forked workers: after activate and drop, the
#    old cookie is invalid in every worker (every one of 12 queries
#    counted invalid) and the fresh cookies validate.
# 5. Client cookies to upstream servers (upstream-cookies: yes, a third
#    petrel on 127.0.170.1:61982): through NSD with answer-cookie: yes,
#    names resolve, and a packet capture on lo (tshark) shows the first
#    query with our client cookie only and a later one with the same
#    client cookie and NSD's server cookie; a server (cookie_server.pl
#    spoof, 127.0.170.3) whose answers carry another client cookie is
#    ignored (SERVFAIL, counted in unwanted.replies); a server that
#    answers BADCOOKIE (cookie_server.pl badcookie, 127.0.170.4) is asked
#    again with its server cookie, and the name resolves.
# Takes /tmp/petrel-integration.lock, runs about 20 s, stops everything it
# started on exit (lib.sh). Exit 0 when every check passed, 1 otherwise,
# 77 when a tool is missing or without root.

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

while [ $# -gt 0 ]; do
	case "$1" in
	-k) IT_KEEP=1 ;;
	*) echo "usage: $0 [-k]" >&2; exit 2 ;;
	esac
	shift
done

RES_IP=127.0.170.1
PORT=61980
FPORT=61981
NS_IP=127.0.170.2
CLIENT=127.0.170.10
SEC1=000102030405060708090a0b0c0d0e0f
SEC2=f0e0d0c0b0a090807060504030201000
CC=0102030405060708

for tool in "$NSD" dig kdig timeout perl tshark; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "cookie: SKIP: $tool not found (apt-get install nsd bind9-dnsutils knot-dnsutils)"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "cookie: SKIP: needs root to bind port 53 on $NS_IP"
	exit 77
fi
it_suite cookie

cat > "$IT_WORK/ck.zz.zone" <<ZONE
\$ORIGIN ck.zz.
\$TTL 3600
@    IN SOA ns.ck.zz. hostmaster.ck.zz. 1 1800 900 604800 300
@    IN NS ns.ck.zz.
ns   IN A $NS_IP
*    IN A 192.0.2.70
ZONE
NSD_EXTRA="answer-cookie: yes" nsd_start ck "$NS_IP" "ck.zz.=$IT_WORK/ck.zz.zone" ||
	{ fail "NSD did not start"; finish; }

# start_petrel NAME PORT EXTRA: a petrel with its own secret file
start_petrel() {
	local name=$1 port=$2 extra=$3 conf="$IT_WORK/$1.conf" pid i
	echo "# the active secret" > "$IT_WORK/$name.secrets"
	echo "$SEC1" >> "$IT_WORK/$name.secrets"
	cat > "$conf" <<CONF
server:
  interface: $RES_IP
  port: $port
  do-ip6: no
  do-not-query-localhost: no
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "$IT_WORK"
  pidfile: "$IT_WORK/$name.pid"
  logfile: ""
  use-syslog: no
  verbosity: 1
  access-control: 127.0.170.0/24 allow
  answer-cookie: yes
  cookie-secret-file: "$IT_WORK/$name.secrets"
$extra
remote-control:
  control-enable: yes
  control-interface: "$IT_WORK/$name.sock"
  control-use-cert: no
forward-zone:
  name: "ck.zz."
  forward-addr: $NS_IP
CONF
	"$PETREL" -d -c "$conf" > "$IT_WORK/$name.log" 2>&1 &
	pid=$!
	it_track "$pid"
	it_track_pidfile "$IT_WORK/$name.pid"
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		if dig +time=1 +tries=1 -p "$port" -b "$CLIENT" @"$RES_IP" \
			localhost. A >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	tail -20 "$IT_WORK/$name.log"
	return 1
}

start_petrel thr "$PORT" "  num-threads: 2" ||
	{ fail "petrel did not start"; finish; }
ctl() { "$PETREL_CONTROL" -c "$IT_WORK/thr.conf" "$@" 2>&1; }
# q PORT ARGS...: dig from the client address
q() { timeout 10 dig +time=2 +tries=1 -b "$CLIENT" -p "$1" @"$RES_IP" "${@:2}" 2>&1; }
# cookie_of: the COOKIE line's hex of dig's output
cookie_of() { sed -n 's/^; COOKIE: \([0-9a-f]*\).*/\1/p'; }
stat_of() { ctl stats_noreset | sed -n "s/^total\.$1=//p"; }

# ------------------------------------------------- 1. dig and kdig
out=$(q $PORT +cookie=$CC www.ck.zz. A)
c1=$(echo "$out" | cookie_of)
if echo "$out" | grep -q "status: NOERROR" && [ ${#c1} = 48 ] &&
	[ "${c1:0:16}" = "$CC" ] &&
	echo "$out" | grep -q "^; COOKIE: $c1 (good)"; then
	ok "dig +cookie: a server cookie came back: $c1"
else
	fail "dig +cookie: $(echo "$out" | grep -i 'cookie\|status')"
fi
kout=$(timeout 10 kdig +time=2 +retry=0 -b "$CLIENT" -p $PORT @"$RES_IP" \
	+cookie=$CC www.ck.zz. A 2>&1)
kc=$(echo "$kout" | sed -n 's/^;; COOKIE: \([0-9A-Fa-f]*\).*/\1/p' |
	tr 'A-F' 'a-f')
if [ ${#kc} = 48 ] && [ "${kc:0:16}" = "$CC" ] &&
	[ "${kc:16:8}" = "01000000" ]; then
	ok "kdig +cookie: the server cookie is shown: $kc"
else
	fail "kdig +cookie: $(echo "$kout" | grep -i 'cookie\|status')"
fi
v0=$(stat_of num.queries_cookie_valid)
out=$(q $PORT +cookie=$c1 www.ck.zz. A)
c2=$(echo "$out" | cookie_of)
v1=$(stat_of num.queries_cookie_valid)
if echo "$out" | grep -q "status: NOERROR" && [ "$c2" = "$c1" ] &&
	[ -n "$v0" ] && [ "$v1" = $((v0 + 1)) ]; then
	ok "the second query, with the server cookie, is accepted (cached answer; num.queries_cookie_valid $v0 -> $v1)"
else
	fail "second query: cookie '$c2' (sent $c1), valid $v0 -> $v1"
fi
n=$(stat_of num.queries_cookie_client)
if [ -n "$n" ] && [ "$n" -ge 2 ]; then
	ok "num.queries_cookie_client=$n"
else
	fail "num.queries_cookie_client='$n', wanted at least 2"
fi

# ------------------------------------------------- 2. malformed
out=$(q $PORT +cookie=010203040506070809 www.ck.zz. A)
if echo "$out" | grep -q "status: FORMERR"; then
	ok "a 9-byte COOKIE option gets FORMERR"
else
	fail "a 9-byte COOKIE option: $(echo "$out" | grep 'status')"
fi

# ------------------------------------------------- 3. the secret commands
p=$(ctl print_cookie_secrets)
if [ "$p" = "active : $SEC1" ]; then
	ok "print_cookie_secrets: $p"
else
	fail "print_cookie_secrets: '$p'"
fi
r=$(ctl add_cookie_secret $SEC2)
p=$(ctl print_cookie_secrets)
if [ "$r" = ok ] && [ "$p" = "active : $SEC1
staging: $SEC2" ] && [ "$(grep -v '^#' "$IT_WORK/thr.secrets")" = "$SEC1
$SEC2" ]; then
	ok "add_cookie_secret: staging, and written to the file"
else
	fail "add_cookie_secret: '$r', print '$p', file '$(cat "$IT_WORK/thr.secrets")'"
fi
r=$(ctl activate_cookie_secret)
p=$(ctl print_cookie_secrets)
v0=$(stat_of num.queries_cookie_valid)
out=$(q $PORT +cookie=$c1 w2.ck.zz. A)
v1=$(stat_of num.queries_cookie_valid)
c3=$(q $PORT +cookie=$CC w2.ck.zz. A | cookie_of)
if [ "$r" = ok ] && [ "$p" = "active : $SEC2
staging: $SEC1" ] && [ "$v1" = $((v0 + 1)) ] && [ ${#c3} = 48 ] &&
	[ "${c3:32:16}" != "${c1:32:16}" ]; then
	ok "activate_cookie_secret: the old cookie still validates, new ones are made with the new secret"
else
	fail "activate_cookie_secret: '$r', print '$p', valid $v0 -> $v1, new cookie $c3 (old $c1)"
fi
r=$(ctl drop_cookie_secret)
p=$(ctl print_cookie_secrets)
i0=$(stat_of num.queries_cookie_invalid)
out=$(q $PORT +cookie=$c1 w3.ck.zz. A)
i1=$(stat_of num.queries_cookie_invalid)
c4=$(echo "$out" | cookie_of)
if [ "$r" = ok ] && [ "$p" = "active : $SEC2" ] &&
	[ "$i1" = $((i0 + 1)) ] && echo "$out" | grep -q "status: NOERROR" &&
	[ ${#c4} = 48 ] && [ "$c4" != "$c1" ] &&
	[ "$(grep -v '^#' "$IT_WORK/thr.secrets")" = "$SEC2" ]; then
	ok "drop_cookie_secret: the old cookie is invalid now, answered with a fresh one"
else
	fail "drop_cookie_secret: '$r', print '$p', invalid $i0 -> $i1, cookie $c4"
fi
r1=$(ctl drop_cookie_secret)
r2=$(ctl activate_cookie_secret)
r3=$(ctl add_cookie_secret 0011)
if [ "$r1" = "error: can not drop the currently active cookie secret" ] &&
	[ "$r2" = "error: no staging cookie secret to activate" ] &&
	[ "$r3" = "invalid cookie secret: invalid argument length
please provide a 128bit hex encoded secret" ]; then
	ok "the errors of the cookie secret commands are Unbound's"
else
	fail "errors: '$r1' '$r2' '$r3'"
fi

# ------------------------------------------------- 4. forked workers
start_petrel frk "$FPORT" "  num-threads: 2
  thread-model: fork
  so-reuseport: yes" || { fail "petrel (fork) did not start"; finish; }
fctl() { "$PETREL_CONTROL" -c "$IT_WORK/frk.conf" "$@" 2>&1; }
fstat() { fctl stats_noreset | sed -n "s/^total\.$1=//p"; }
old=$(q $FPORT +cookie=$CC f.ck.zz. A | cookie_of)
r=$(fctl add_cookie_secret $SEC2; fctl activate_cookie_secret;
	fctl drop_cookie_secret)
i0=$(fstat num.queries_cookie_invalid)
bad=0
for i in $(seq 12); do
	# a new source port each time: SO_REUSEPORT spreads them
	c=$(q $FPORT +cookie=$old "f$i.ck.zz." A | cookie_of)
	[ ${#c} = 48 ] && [ "$c" != "$old" ] || bad=$((bad + 1))
done
i1=$(fstat num.queries_cookie_invalid)
v0=$(fstat num.queries_cookie_valid)
new=$(q $FPORT +cookie=$CC g.ck.zz. A | cookie_of)
for i in $(seq 6); do q $FPORT +cookie=$new "g$i.ck.zz." A >/dev/null; done
v1=$(fstat num.queries_cookie_valid)
if [ "$r" = "ok
ok
ok" ] && [ $bad = 0 ] && [ "$i1" = $((i0 + 12)) ] &&
	[ "$v1" = $((v0 + 6)) ]; then
	ok "fork: after add, activate and drop, the old cookie is invalid in every worker (12 of 12), the new one valid (6 of 6)"
else
	fail "fork: '$r', bad $bad, invalid $i0 -> $i1, valid $v0 -> $v1"
fi
# ------------------------------------------------- 5. upstream cookies
SPOOF_IP=127.0.170.3
BAD_IP=127.0.170.4
UPORT=61982
perl "$here/cookie_server.pl" $SPOOF_IP spoof 192.0.2.71 \
	"$IT_WORK/spoof.log" > "$IT_WORK/spoof.out" 2>&1 &
it_track $!
perl "$here/cookie_server.pl" $BAD_IP badcookie 192.0.2.72 \
	"$IT_WORK/bad.log" > "$IT_WORK/bad.out" 2>&1 &
it_track $!
start_petrel up "$UPORT" "  num-threads: 1
  extended-statistics: yes
  upstream-cookies: yes
forward-zone:
  name: \"spoof.zz.\"
  forward-addr: $SPOOF_IP
forward-zone:
  name: \"bad.zz.\"
  forward-addr: $BAD_IP" || { fail "petrel (upstream-cookies) did not start"; finish; }
uctl() { "$PETREL_CONTROL" -c "$IT_WORK/up.conf" "$@" 2>&1; }
timeout 20 tshark -i lo -f "udp and dst host $NS_IP and dst port 53" \
	-T fields -e dns.qry.name -e dns.opt.cookie.client \
	-e dns.opt.cookie.server > "$IT_WORK/cap.txt" 2> "$IT_WORK/cap.err" &
TS=$!
it_track $TS
for i in $(seq 50); do
	grep -q "Capturing on" "$IT_WORK/cap.err" 2>/dev/null && break
	sleep 0.1
done
sleep 0.5
nres=0
for i in 1 2 3; do
	q $UPORT "u$i.ck.zz." A | grep -q "status: NOERROR" && nres=$((nres + 1))
done
sleep 1
kill $TS 2>/dev/null
wait $TS 2>/dev/null
first=$(head -1 "$IT_WORK/cap.txt")
last=$(tail -1 "$IT_WORK/cap.txt")
fc=$(echo "$first" | cut -f2 | tr -d ':')
fs=$(echo "$first" | cut -f3 | sed 's/<MISSING>//')
lc=$(echo "$last" | cut -f2 | tr -d ':')
ls_=$(echo "$last" | cut -f3 | tr -d ':')
if [ $nres = 3 ] && [ ${#fc} = 16 ] && [ -z "$fs" ] && [ "$lc" = "$fc" ] &&
	[ ${#ls_} -ge 16 ]; then
	ok "upstream-cookies: through NSD, client cookie $fc sent, then with NSD's server cookie $ls_"
else
	fail "upstream-cookies with NSD: $nres of 3 resolved; capture: $(tr '\t\n' ' |' < "$IT_WORK/cap.txt")"
fi
u0=$(uctl stats_noreset | sed -n 's/^unwanted\.replies=//p')
out=$(timeout 20 dig +time=10 +tries=1 -b "$CLIENT" -p $UPORT @"$RES_IP" \
	www.spoof.zz. A 2>&1)
u1=$(uctl stats_noreset | sed -n 's/^unwanted\.replies=//p')
if echo "$out" | grep -q "status: SERVFAIL" && [ -n "$u0" ] &&
	[ "$u1" -gt "$u0" ] && grep -q "^cookie [0-9a-f]\{16\}$" "$IT_WORK/spoof.log"; then
	ok "upstream-cookies: answers with another client cookie are ignored (SERVFAIL, unwanted.replies $u0 -> $u1)"
else
	fail "spoofed cookies: $(echo "$out" | grep status), unwanted $u0 -> $u1"
fi
out=$(q $UPORT www.bad.zz. A)
if echo "$out" | grep -q "192\.0\.2\.72" &&
	sed -n 1p "$IT_WORK/bad.log" | grep -q "^cookie [0-9a-f]\{16\}$" &&
	sed -n 2p "$IT_WORK/bad.log" | grep -q "^cookie [0-9a-f]\{16\}01000000\(5a\)\{12\}$"; then
	ok "upstream-cookies: BADCOOKIE is asked again with the server cookie, and answered"
else
	fail "BADCOOKIE: $(echo "$out" | grep -A1 'ANSWER SEC\|status'); log: $(tr '\n' ' ' < "$IT_WORK/bad.log")"
fi
kill -0 "$(cat "$IT_WORK/thr.pid")" 2>/dev/null || fail "petrel died"
finish
