#!/bin/bash
# tests/integration/cachedump.sh - a cache moves between Unbound and
# petrel both ways (dump_cache / load_cache in Unbound's text format).
#
#   bash tests/integration/cachedump.sh [PETREL [PETREL_CONTROL]]
#   (or PETREL=..., PETREL_CONTROL=..., UNBOUND=..., UNBOUND_CONTROL=...)
#
# NSD serves a root zone and dump.example on 127.0.160.2 port 53; the
# root hints of both resolvers point there. Unbound to petrel: Unbound
# (127.0.160.1@61970) resolves A, AAAA, a CNAME chain, NXDOMAIN, NODATA,
# MX and TXT questions; `unbound-control dump_cache` is fed to
# `petrel-control load_cache` of a petrel (127.0.160.1@61971) started
# after NSD was stopped, and petrel answers each question as Unbound did
# (dig +short and rcode), while a question that was not in the dump gets
# SERVFAIL (the answers come from the loaded cache, not from upstream).
# Petrel to Unbound: petrel resolves the same questions with NSD running,
# `petrel-control dump_cache` is fed to the real `unbound-control
# load_cache` of a fresh Unbound started after NSD was stopped again; it
# must say "ok" and answer the same. Then: a dump giving its entries as
# secure loads into petrel secure, as into Unbound (AD for a DO query
# and for a query with AD set; dumped again as secure and validated);
# a dump with a malformed line is refused with its line number
# and nothing of it is loaded (not even the entries before that line).
# And the statistics: after the same questions, petrel prints every line
# the real Unbound printed, with real cache counts.
#
# Addresses 127.0.160.1-2; ports 61970 (Unbound), 61971 (petrel); the
# control channels are unix sockets in the work directory.
# Prints "cachedump: N passed, M failed"; exit 0 when nothing failed.
# Stops everything it started (lib.sh's trap).

HERE=$(cd "$(dirname "$0")" && pwd)
PETREL=${1:-${PETREL:-petrel}}
PETREL_CONTROL=${2:-${PETREL_CONTROL:-petrel-control}}
. "$HERE/lib.sh"
UB=$UNBOUND
UC=$UNBOUND_CONTROL


command -v "$NSD" >/dev/null 2>&1 || NSD=$(command -v nsd)
for t in "$PETREL" "$PETREL_CONTROL" "$UB" "$UC" "$NSD" dig; do
	if ! command -v "$t" >/dev/null 2>&1 && [ ! -x "$t" ]; then
		echo "cachedump: missing $t (contrib/setup-debian.sh installs" \
			"it)" >&2
		exit 1
	fi
done

IT_QUIET=1
it_suite cachedump
W=$IT_WORK
IP=127.0.160.1
NSD_IP=127.0.160.2
UB_PORT=61970
PT_PORT=61971
for a in $IP $NSD_IP; do
	ip addr show dev lo 2>/dev/null | grep -q "inet $a/" ||
		ip addr add $a/32 dev lo 2>/dev/null
done

cat > "$W/root.zone" <<EOF
\$ORIGIN .
\$TTL 86400
.	IN SOA a.root. hostmaster. 1 3600 600 86400 3600
.	IN NS a.root.
a.root.	IN A $NSD_IP
dump.example.	IN NS ns.dump.example.
ns.dump.example.	IN A $NSD_IP
EOF
cat > "$W/dump.zone" <<EOF
\$ORIGIN dump.example.
\$TTL 3000
@	IN SOA ns hostmaster 1 3600 600 86400 600
@	IN NS ns
ns	IN A $NSD_IP
www	IN A 192.0.2.1
www	IN A 192.0.2.2
www	IN AAAA 2001:db8::1
alias	IN CNAME alias2
alias2	IN CNAME www
@	IN MX 10 mail
mail	IN A 192.0.2.3
txt	IN TXT "hello world" "two"
nodata	IN TXT "only txt"
sec	IN A 192.0.2.9
EOF
printf '.\t3600000 IN NS a.root.\na.root.\t3600000 IN A %s\n' $NSD_IP \
	> "$W/root.hints"

# the questions: name/type
QUESTIONS="www.dump.example/A www.dump.example/AAAA alias.dump.example/A
nx.dump.example/A nodata.dump.example/A dump.example/MX txt.dump.example/TXT
mail.dump.example/A"

NSD_PID=""
start_nsd() {
	NSD_PORT=53 nsd_start cd $NSD_IP .="$W/root.zone" \
		dump.example="$W/dump.zone" || { bad "NSD did not start"; finish; }
	NSD_PID=$(cat "$W/nsd-cd/nsd.pid" 2>/dev/null)
}
stop_nsd() {
	it_kill "$NSD_PID"
	# nothing answers on port 53 any more
	if dig +time=1 +tries=1 +norecurse @$NSD_IP dump.example SOA \
		>/dev/null 2>&1; then
		bad "NSD still answers after it was stopped"
	fi
}

# conf FILE PORT SOCK [petrel]: a config both resolvers read
conf() {
	{
		echo "server:"
		echo "  interface: $IP@$2"
		echo "  num-threads: 1"
		echo "  do-daemonize: no"
		echo "  pidfile: \"\""
		echo "  chroot: \"\""
		echo "  username: \"\""
		echo "  directory: \"$W\""
		echo "  logfile: \"$W/$(basename "$1" .conf).log\""
		echo "  verbosity: 1"
		echo "  do-not-query-localhost: no"
		echo "  root-hints: \"$W/root.hints\""
		echo "  module-config: \"iterator\""
		echo "  qname-minimisation: no"
		echo "  prefetch: no"
		echo "  extended-statistics: yes"
		echo "remote-control:"
		echo "  control-enable: yes"
		echo "  control-interface: $3"
	} > "$1"
}
conf "$W/unbound.conf" $UB_PORT "$W/ub.sock"
conf "$W/petrel.conf" $PT_PORT "$W/pt.sock"

UB_PID=""
start_unbound() {
	"$UB" -d -c "$W/unbound.conf" >>"$W/unbound.out" 2>&1 9>&- &
	UB_PID=$!
	it_track $UB_PID
	for i in $(seq 50); do
		"$UC" -c "$W/unbound.conf" status >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	bad "unbound did not start"
	tail -5 "$W/unbound.log" "$W/unbound.out" >&2
	finish
}
PT_PID=""
start_petrel() {
	"$PETREL" -d -c "$W/petrel.conf" >>"$W/petrel.out" 2>&1 9>&- &
	PT_PID=$!
	it_track $PT_PID
	for i in $(seq 50); do
		"$PETREL_CONTROL" -c "$W/petrel.conf" status >/dev/null 2>&1 &&
			return 0
		sleep 0.1
	done
	bad "petrel did not start"
	tail -5 "$W/petrel.log" "$W/petrel.out" >&2
	finish
}

# answers PORT FILE: each question's rcode and sorted short answer
answers() {
	local port=$1 q name type out
	: > "$2"
	for q in $QUESTIONS; do
		name=${q%/*}
		type=${q#*/}
		out=$(dig +time=2 +tries=1 @$IP -p "$port" "$name" "$type" 2>&1)
		{
			echo "$name $type $(echo "$out" |
				sed -n 's/.*status: \([A-Z]*\).*/\1/p' | head -1)"
			dig +short +time=2 +tries=1 @$IP -p "$port" "$name" \
				"$type" 2>&1 | sort
		} >> "$2"
	done
}
rcode() {
	dig +time=2 +tries=1 @$IP -p "$1" "$2" "$3" 2>/dev/null |
		sed -n 's/.*status: \([A-Z]*\).*/\1/p' | head -1
}

# ------------------------------------------------- Unbound to petrel
start_nsd
start_unbound
answers $UB_PORT "$W/ub-answers"
if grep -q "^www.dump.example A NOERROR" "$W/ub-answers" &&
	grep -q "^nx.dump.example A NXDOMAIN" "$W/ub-answers" &&
	grep -q "^192.0.2.2$" "$W/ub-answers"; then
	ok "Unbound resolved the questions"
else
	bad "Unbound's answers: $(head -c 300 "$W/ub-answers")"
fi
"$UC" -c "$W/unbound.conf" stats_noreset > "$W/ub.stats" 2>&1
"$UC" -c "$W/unbound.conf" dump_cache > "$W/ub.dump" 2>&1
if head -1 "$W/ub.dump" | grep -q '^START_RRSET_CACHE$' &&
	tail -1 "$W/ub.dump" | grep -q '^EOF$' &&
	grep -q '^msg alias.dump.example. IN A ' "$W/ub.dump"; then
	ok "unbound-control dump_cache"
else
	bad "unbound-control dump_cache: $(head -3 "$W/ub.dump")"
fi
it_kill "$UB_PID"
stop_nsd

start_petrel
# nothing cached, no upstream: no answer, or SERVFAIL (what the loaded
# cache must change)
[ "$(rcode $PT_PORT www.dump.example A)" != NOERROR ] &&
	ok "petrel without the dump cannot answer" ||
	bad "petrel answered www.dump.example without the dump"
OUT=$("$PETREL_CONTROL" -c "$W/petrel.conf" load_cache < "$W/ub.dump" 2>&1)
echo "$OUT" | grep -q '^ok loaded [1-9]' && ok "petrel-control load_cache" ||
	bad "petrel-control load_cache: $OUT"
answers $PT_PORT "$W/pt-answers"
if diff "$W/ub-answers" "$W/pt-answers" > "$W/diff1"; then
	ok "petrel answers as Unbound did, from Unbound's dump"
else
	bad "petrel's answers differ from Unbound's: $(cat "$W/diff1")"
fi
[ "$(rcode $PT_PORT other.dump.example A)" != NOERROR ] &&
	ok "a question not in the dump: not answered (no upstream)" ||
	bad "other.dump.example answered: the upstream is not down?"
it_kill "$PT_PID"

# ------------------------------------------------- petrel to Unbound
start_nsd
start_petrel
answers $PT_PORT "$W/pt2-answers"
if diff "$W/ub-answers" "$W/pt2-answers" > "$W/diff2"; then
	ok "petrel resolves as Unbound did"
else
	bad "petrel resolves otherwise: $(cat "$W/diff2")"
fi
"$PETREL_CONTROL" -c "$W/petrel.conf" stats_noreset > "$W/pt.stats" 2>&1
"$PETREL_CONTROL" -c "$W/petrel.conf" dump_cache > "$W/pt.dump" 2>&1
if head -1 "$W/pt.dump" | grep -q '^START_RRSET_CACHE$' &&
	tail -1 "$W/pt.dump" | grep -q '^EOF$' &&
	grep -q '^msg nx.dump.example. IN A 32899 ' "$W/pt.dump"; then
	ok "petrel-control dump_cache"
else
	bad "petrel-control dump_cache: $(head -3 "$W/pt.dump")"
fi
it_kill "$PT_PID"
stop_nsd

start_unbound
[ "$(rcode $UB_PORT www.dump.example A)" != NOERROR ] &&
	ok "Unbound without the dump cannot answer" ||
	bad "Unbound answered www.dump.example without the dump"
OUT=$("$UC" -c "$W/unbound.conf" load_cache < "$W/pt.dump" 2>&1)
[ "$OUT" = ok ] && ok "unbound-control load_cache of petrel's dump: ok" ||
	bad "unbound-control load_cache: '$OUT'"
answers $UB_PORT "$W/ub2-answers"
if diff "$W/ub-answers" "$W/ub2-answers" > "$W/diff3"; then
	ok "Unbound answers the same from petrel's dump"
else
	bad "Unbound's answers from petrel's dump differ: $(cat "$W/diff3")"
fi
it_kill "$UB_PID"

# ------------------------------------------------- statistics
# after the same questions, every statistic the real Unbound printed is
# in petrel's stats too (but the memory of modules and buffers petrel
# does not have: mem.mod.*, mem.streamwait, mem.http.*; and ECS's
# num.query.subnet*)
cut -d= -f1 "$W/ub.stats" | grep -v -E '^(mem\.mod\.|mem\.streamwait|mem\.http\.|num\.query\.subnet)' |
	sort > "$W/ub.names"
cut -d= -f1 "$W/pt.stats" | sort > "$W/pt.names"
missing=$(comm -23 "$W/ub.names" "$W/pt.names" | tr '\n' ' ')
[ -s "$W/ub.names" ] && [ -z "$missing" ] &&
	ok "petrel prints every statistic Unbound printed ($(wc -l < "$W/ub.names"))" ||
	bad "statistics Unbound printed and petrel did not: $missing"
# the cache counts are real: the message cache holds at least the
# messages of the dump (one per question; the cache may also hold a DO
# one), the RRset cache at most the sets of the dump (which adds the
# sets of messages that are not in the RRset cache) but some
v=$(sed -n "s/^msg.cache.count=//p" "$W/pt.stats")
n=$(grep -c '^msg ' "$W/pt.dump")
[ -n "$v" ] && [ "$n" -gt 0 ] && [ "$v" -ge "$n" ] &&
	ok "msg.cache.count ($v) counts the cache ($n in the dump)" ||
	bad "msg.cache.count '$v', the dump has $n"
v=$(sed -n "s/^rrset.cache.count=//p" "$W/pt.stats")
n=$(grep -c '^;rrset ' "$W/pt.dump")
[ -n "$v" ] && [ "$v" -gt 0 ] && [ "$v" -le "$n" ] &&
	ok "rrset.cache.count ($v) counts the cache ($n in the dump)" ||
	bad "rrset.cache.count '$v', the dump has $n"
v=$(sed -n 's/^infra.cache.count=//p' "$W/pt.stats")
[ "${v:-0}" -ge 1 ] && ok "infra.cache.count ($v) counts NSD" ||
	bad "infra.cache.count '$v'"

# ------------------------------------------------- security, errors
# a dump that claims sec.dump.example secure (validated trust, security
# 5) and the message secure
cat > "$W/secure.dump" <<EOF
START_RRSET_CACHE
;rrset 3000 1 0 11 5
sec.dump.example.	3000	IN	A	192.0.2.9
END_RRSET_CACHE
START_MSG_CACHE
msg sec.dump.example. IN A 32896 1 3000 5 1 0 0
sec.dump.example. IN A 0
END_MSG_CACHE
EOF
echo EOF >> "$W/secure.dump"
start_petrel
OUT=$("$PETREL_CONTROL" -c "$W/petrel.conf" load_cache < "$W/secure.dump" 2>&1)
echo "$OUT" | grep -q '^ok loaded 2 ' && ok "load_cache of a 'secure' dump" ||
	bad "load_cache of a 'secure' dump: $OUT"
# the dump's status is kept, as Unbound keeps it (issue 31, defect 6):
# the operator gives the dump over the authenticated control channel
OUT=$(dig +time=2 +tries=1 +dnssec @$IP -p $PT_PORT sec.dump.example A 2>&1)
if echo "$OUT" | grep -q '^sec.dump.example.*192.0.2.9' &&
	echo "$OUT" | grep -q '^;; flags:.* ad[ ;]'; then
	ok "a loaded 'secure' entry is served with AD (DO query)"
else
	bad "loaded 'secure' entry: $(echo "$OUT" | grep -E 'flags|^sec')"
fi
OUT=$(dig +time=2 +tries=1 +adflag @$IP -p $PT_PORT sec.dump.example A 2>&1)
echo "$OUT" | grep -q '^sec.dump.example.*192.0.2.9' &&
	echo "$OUT" | grep -q '^;; flags:.* ad[ ;]' &&
	ok "and with AD for a query without DO that sets AD" ||
	bad "loaded 'secure' entry, no DO: $(echo "$OUT" | grep -E 'flags|^sec')"
"$PETREL_CONTROL" -c "$W/petrel.conf" dump_cache > "$W/sec-out.dump" 2>&1
grep -q '^msg sec.dump.example. IN A 32896 1 [0-9]* 5 1 0 0$' "$W/sec-out.dump" &&
	grep -q '^;rrset [0-9]* 1 0 11 5$' "$W/sec-out.dump" &&
	ok "dumped again: secure (5), validated (11)" ||
	bad "dumped again: $(grep -A1 -E '^(msg|;rrset)' "$W/sec-out.dump" | head -4)"

# a malformed line after good entries: an error naming it, nothing loaded
awk 'NR == 1 { print; next }
	/^msg www.dump.example. IN A / { print "msg www.dump.example. IN A"
		bad = 1; next }
	{ print }' "$W/ub.dump" > "$W/bad.dump"
line=$(grep -n '^msg www.dump.example. IN A$' "$W/bad.dump" | cut -d: -f1)
"$PETREL_CONTROL" -c "$W/petrel.conf" flush_zone dump.example >/dev/null 2>&1
OUT=$("$PETREL_CONTROL" -c "$W/petrel.conf" load_cache < "$W/bad.dump" 2>&1)
RC=$?
[ $RC != 0 ] && echo "$OUT" | grep -q "^error line $line: " &&
	ok "a malformed dump: error at line $line" ||
	bad "malformed dump (line $line): rc $RC '$OUT'"
"$PETREL_CONTROL" -c "$W/petrel.conf" dump_cache > "$W/after-bad.dump" 2>&1
grep -q '^EOF$' "$W/after-bad.dump" &&
	! grep -q 'dump\.example' "$W/after-bad.dump" &&
	[ "$(rcode $PT_PORT alias.dump.example A)" != NOERROR ] &&
	ok "nothing of the malformed dump was loaded" ||
	bad "entries of the malformed dump were loaded: $(grep -m3 dump.example "$W/after-bad.dump")"
it_kill "$PT_PID"
finish
