#!/bin/bash
# tests/integration/doh.sh - DNS over HTTPS (RFC 8484) against real clients.
#
#   make check-doh        (or: PETREL=./petrel bash tests/integration/doh.sh)
#
# Needs root (tshark capture on lo), kdig, curl (with HTTP/2), dig,
# openssl, tshark. Everything listens on 127.0.130.0/24; a CA and
# certificates are made with openssl at the start in the work directory;
# lib.sh's it_cleanup stops every process started, also on failure.
#
#   127.0.130.2@443  petrel "up": DoH server (https-port 443) answering
#   and .5@443       the static zones up.zz and zz from local data
#   127.0.130.4@443  petrel "evil": a DoH server whose certificate comes
#                    from a CA petrel does not trust
#   127.0.130.7@443  nothing listens
#   127.0.130.3@80   petrel "h2c": http-notls-downstream, https-port 80
#   127.0.130.10@443 petrel "tk": tls-session-ticket-keys, restarted
#   127.0.130.1      petrel under test: plain DNS on 53, DoH on 443, DoT
#                    on 853 (and DDR: _dns.resolver.arpa SVCB), and
#                    forwarding over DoH (forward-addr: https://...):
#      .          https://127.0.130.2/dns-query#doh.test   answers
#      ip.zz      https://127.0.130.5@443/dns-query       answers (the IP
#                                                         address verified)
#      badname.zz https://127.0.130.2/dns-query#wrong.test (same address as
#                 ".": one server per address and port, so it answers;
#                 checked below with its own address instead)
#      badca.zz   https://127.0.130.4/dns-query#doh.test   SERVFAIL, EDE
#      dead.zz    https://127.0.130.7/dns-query#doh.test   SERVFAIL, EDE
#      wrongname.zz https://127.0.130.6/dns-query#wrong.test SERVFAIL, EDE
#                 (.6 is "up" too, its certificate does not name .6 or
#                 wrong.test)
#      badpath.zz https://127.0.130.8/nope#doh.test        SERVFAIL (404)
#
# Forwarding: the answers over DoH, 20 concurrent queries on one HTTP/2
# connection, SERVFAIL with an Extended DNS Error for each failure, and a
# tshark capture on lo in which no packet to a DoH upstream is UDP, TCP to
# another port than 443, a TCP payload that is not TLS, or holds a query
# name in clear.
#
# Downstream: kdig +https (POST) and +https-get, curl --http2 GET and POST
# (status, content type, Cache-Control max-age = the smallest TTL, one
# connection for several queries), the HTTP errors (404 path, 415 type,
# 400 bad query, 413 too large, 405 method), ALPN h2 (and a client that
# offers only dot refused), no UDP or plain TCP on the DoH port, h2c with
# curl --http2-prior-knowledge, and malformed HTTP/2 bytes (the server
# keeps answering).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

: "${PETREL:=$(pwd)/petrel}"
: "${PETREL_CONTROL:=$(dirname "$PETREL")/petrel-control}"
: "${TSHARK:=tshark}"
NET=127.0.130

for t in kdig dig curl openssl "$TSHARK" "$PETREL"; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "doh: SKIP: $t not found"
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "doh: SKIP: needs root (ports 53, 80 and 443, capture on lo)"
	exit 77
fi
if ! "$PETREL" -V | grep -q "^nghttp2: [0-9]"; then
	echo "doh: SKIP: petrel is built without libnghttp2"
	exit 77
fi
if ! curl -V | grep -q "HTTP2"; then
	echo "doh: SKIP: curl without HTTP/2"
	exit 77
fi

it_suite doh
W=$IT_WORK
ok()   { echo "ok   $*${IT_TIMES:+ ($SECONDS s)}"; PASSED=$((PASSED + 1)); }

# ------------------------------------------------------------ certificates
cert() { # cert NAME CA SAN
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$W/$1.key" -out "$W/$1.csr" -subj "/CN=$1" 2>/dev/null &&
	printf 'subjectAltName=%s\n' "$3" > "$W/$1.ext" &&
	openssl x509 -req -in "$W/$1.csr" -CA "$W/$2.pem" -CAkey "$W/$2.key" \
		-CAcreateserial -out "$W/$1.pem" -days 2 \
		-extfile "$W/$1.ext" 2>/dev/null
}
for ca in ca evilca; do
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$W/$ca.key" -out "$W/$ca.pem" -days 2 \
		-subj "/CN=petrel test $ca" 2>/dev/null || { echo "openssl failed"; exit 1; }
done
cert good ca "DNS:doh.test,IP:$NET.1,IP:$NET.2,IP:$NET.5,IP:$NET.8" &&
cert evil evilca "DNS:doh.test,IP:$NET.4" || { echo "openssl failed"; exit 1; }
chmod 600 "$W/good.key"

# ------------------------------------------------------------ capture
"$TSHARK" -i lo -n -q -w "$W/lo.pcap" -f "net $NET.0/24" > "$W/tshark.out" 2>&1 &
TSPID=$!
it_track $TSPID
for i in $(seq 100); do
	grep -q "Capturing on" "$W/tshark.out" && break
	sleep 0.1
done
grep -q "Capturing on" "$W/tshark.out" || { echo "tshark did not start:"; cat "$W/tshark.out"; exit 1; }

# ------------------------------------------------------------ petrels
common() { # the lines every petrel here has
	cat <<EOF
  num-threads: 1
  do-ip6: no
  do-daemonize: no
  username: "nobody"
  chroot: ""
  pidfile: ""
  use-syslog: no
  logfile: ""
  verbosity: 1
  do-not-query-localhost: no
  access-control: 127.0.0.0/8 allow
  tls-service-key: "$W/good.key"
  tls-service-pem: "$W/good.pem"
EOF
}
{
	echo "server:"
	echo "  interface: $NET.2@443"
	echo "  interface: $NET.5@443"
	echo "  interface: $NET.6@443"
	echo "  interface: $NET.8@443"
	echo "  interface: $NET.2@53"
	common
	echo "  local-zone: \"zz.\" static"
	echo "  local-data: \"zz. 3600 IN SOA ns.zz. h.zz. 1 2 3 4 45\""
	echo "  local-data: \"www.zz. 300 IN A 192.0.2.2\""
	echo "  local-data: \"two.zz. 300 IN A 192.0.2.3\""
	echo "  local-data: \"two.zz. 120 IN A 192.0.2.4\""
	echo "  local-zone: \"up.zz.\" static"
	echo "  local-data: \"www.up.zz. 300 IN A 192.0.2.1\""
	echo "forward-zone:"
	echo "  name: \".\""
	echo "  forward-addr: $NET.9@53"
} > "$W/up.conf"
{
	echo "server:"
	echo "  interface: $NET.4@443"
	common | sed "s/good\.key/evil.key/; s/good\.pem/evil.pem/"
	echo "  local-zone: \"zz.\" static"
	echo "  local-data: \"www.badca.zz. 300 IN A 192.0.2.66\""
	echo "forward-zone:"
	echo "  name: \".\""
	echo "  forward-addr: $NET.9@53"
} > "$W/evil.conf"
{
	echo "server:"
	echo "  interface: $NET.3@80"
	echo "  https-port: 80"
	echo "  http-notls-downstream: yes"
	common
	echo "  local-zone: \"zz.\" static"
	echo "  local-data: \"www.zz. 300 IN A 192.0.2.2\""
	echo "forward-zone:"
	echo "  name: \".\""
	echo "  forward-addr: $NET.9@53"
} > "$W/h2c.conf"
{
	echo "server:"
	echo "  interface: $NET.1@53"
	echo "  interface: $NET.1@443"
	echo "  interface: $NET.1@853"
	echo "  tls-cert-bundle: \"$W/ca.pem\""
	common
	echo "  local-zone: \"local.zz.\" static"
	echo "  local-data: \"www.local.zz. 300 IN A 192.0.2.9\""
	echo "  extended-statistics: yes"
	echo "  edns-tcp-keepalive: yes"
	echo "  edns-tcp-keepalive-timeout: 12000"
	echo "remote-control:"
	echo "  control-enable: yes"
	echo "  control-interface: $W/ctl.sock"
	echo "forward-zone:"
	echo "  name: \".\""
	echo "  forward-addr: https://$NET.2/dns-query#doh.test"
	echo "forward-zone:"
	echo "  name: \"ip.zz.\""
	echo "  forward-addr: https://$NET.5@443/dns-query"
	for z in badca:4:doh.test dead:7:doh.test wrongname:6:wrong.test; do
		echo "forward-zone:"
		echo "  name: \"${z%%:*}.zz.\""
		z=${z#*:}
		echo "  forward-addr: https://$NET.${z%%:*}/dns-query#${z#*:}"
	done
	echo "forward-zone:"
	echo "  name: \"badpath.zz.\""
	echo "  forward-addr: https://$NET.8/nope#doh.test"
} > "$W/petrel.conf"
start() { # start NAME ADDR: a petrel, waited for on ADDR port 53 or DoH
	"$PETREL" -d -c "$W/$1.conf" > "$W/$1.log" 2>&1 &
	it_track $!
	for i in $(seq 50); do
		grep -q "worker ready\|workers ready" "$W/$1.log" && return 0
		sleep 0.1
	done
	echo "petrel $1 did not start; its log:"; cat "$W/$1.log"
	return 1
}
chmod 644 "$W/evil.key"
start up || exit 1
start evil || exit 1
start h2c || exit 1
start petrel || exit 1

# ------------------------------------------------------------ downstream DoH
KD="kdig +tls-ca=$W/ca.pem +tls-hostname=doh.test +time=5 +retry=0 @$NET.1 -p 443"
out=$($KD +https www.local.zz A 2>&1)
echo "$out" | grep -q "HTTP/2-POST" && echo "$out" | grep -q "192.0.2.9" &&
	ok "kdig +https (POST, certificate verified): answer" || fail "kdig +https: $out"
out=$($KD +https-get www.local.zz A 2>&1)
echo "$out" | grep -q "HTTP/2-GET" && echo "$out" | grep -q "192.0.2.9" &&
	ok "kdig +https-get: answer" || fail "kdig +https-get: $out"
out=$($KD +https www.zz A 2>&1)
echo "$out" | grep -q "192.0.2.2" && ok "kdig +https: a recursive answer" ||
	fail "kdig +https www.zz: $out"
out=$($KD +https +padding www.local.zz A 2>&1)
echo "$out" | grep -q "Received 468 B" && ok "kdig +https +padding: answer padded to 468 bytes" ||
	fail "DoH padding: $out"

# curl: a query in base64url (www.local.zz A, id 0) and its wire form
Q64=AAABAAABAAAAAAAAA3d3dwVsb2NhbAJ6egAAAQAB
printf '\x00\x00\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x03www\x05local\x02zz\x00\x00\x01\x00\x01' > "$W/q.bin"
C="curl -s --http2 --cacert $W/ca.pem --resolve doh.test:443:$NET.1 --max-time 5"
URL=https://doh.test/dns-query
out=$($C -D "$W/h.get" -o "$W/a.get" -w '%{http_version} %{http_code}' "$URL?dns=$Q64")
[ "$out" = "2 200" ] && grep -qi "^content-type: application/dns-message" "$W/h.get" &&
	grep -qi "^cache-control: max-age=300" "$W/h.get" &&
	[ "$(od -An -tx1 -j2 -N1 "$W/a.get" | tr -d ' ')" = 85 ] &&
	ok "curl --http2 GET: 200, application/dns-message, max-age=300, an answer" ||
	fail "curl GET: $out $(cat "$W/h.get")"
out=$($C -D "$W/h.post" -o "$W/a.post" -w '%{http_version} %{http_code}' \
	-H 'content-type: application/dns-message' --data-binary @"$W/q.bin" "$URL")
[ "$out" = "2 200" ] && cmp -s "$W/a.get" "$W/a.post" &&
	ok "curl --http2 POST: 200, the same answer as GET" || fail "curl POST: $out"
# two records with TTL 300 and 120: max-age is the smaller
Q2=AAABAAABAAAAAAAAA3R3bwJ6egAAAQAB
$C -D "$W/h.two" -o /dev/null "$URL?dns=$Q2"
grep -qi "^cache-control: max-age=120" "$W/h.two" && ok "Cache-Control max-age is the smallest TTL (120)" ||
	fail "max-age of two.zz: $(cat "$W/h.two")"
# three queries, one connection
out=$($C -o /dev/null -o /dev/null -o /dev/null -w '%{num_connects}\n' \
	"$URL?dns=$Q64" "$URL?dns=$Q2" "$URL?dns=$Q64" | tr '\n' ' ')
[ "$out" = "1 0 0 " ] && ok "three GETs on one HTTP/2 connection" || fail "connection reuse: $out"
code() { $C -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code "https://doh.test/other?dns=$Q64")" = 404 ] && ok "wrong path: 404" || fail "wrong path: $(code "https://doh.test/other?dns=$Q64")"
[ "$(code -H 'content-type: text/plain' --data-binary @"$W/q.bin" "$URL")" = 415 ] &&
	ok "POST text/plain: 415" || fail "POST text/plain"
[ "$(code "$URL?dns=not*base64")" = 400 ] && ok "bad base64url: 400" || fail "bad base64url"
[ "$(code "$URL?dns=AAAB")" = 400 ] && ok "query shorter than a header: 400" || fail "short query"
[ "$(code "$URL")" = 400 ] && ok "GET without dns=: 400" || fail "GET without dns"
head -c 70000 /dev/zero > "$W/big.bin"
[ "$(code -H 'content-type: application/dns-message' --data-binary @"$W/big.bin" "$URL")" = 413 ] &&
	ok "POST body over 65535 bytes: 413" || fail "big POST"
[ "$(code -X PUT -H 'content-type: application/dns-message' --data-binary @"$W/q.bin" "$URL")" = 405 ] &&
	ok "PUT: 405" || fail "PUT"
out=$(echo | timeout 10 openssl s_client -connect $NET.1:443 -alpn h2 \
	-CAfile "$W/ca.pem" -verify_hostname doh.test 2>&1 | tr -d '\0')
echo "$out" | grep -q "ALPN protocol: h2" && echo "$out" | grep -q "Verify return code: 0 (ok)" &&
	ok "openssl s_client: ALPN h2, verified" || fail "s_client h2: $out"
out=$(echo | timeout 10 openssl s_client -connect $NET.1:443 -alpn dot \
	-CAfile "$W/ca.pem" 2>&1)
echo "$out" | grep -q "alert no application protocol" && ok "ALPN without h2 refused" ||
	fail "ALPN dot on the DoH port: $out"
out=$(dig +time=2 +tries=1 @$NET.1 -p 443 www.local.zz A 2>&1)
echo "$out" | grep -q "192.0.2.9" && fail "plain UDP answered on the DoH port" ||
	ok "no plain UDP on the DoH port"
out=$(dig +tcp +time=2 +tries=1 @$NET.1 -p 443 www.local.zz A 2>&1)
echo "$out" | grep -q "192.0.2.9" && fail "plain TCP answered on the DoH port" ||
	ok "no plain TCP on the DoH port"
# h2c behind a proxy: HTTP/2 without TLS
out=$(curl -s --http2-prior-knowledge --max-time 5 -o "$W/a.h2c" -w '%{http_version} %{http_code}' \
	"http://$NET.3/dns-query?dns=AAABAAABAAAAAAAAA3d3dwJ6egAAAQAB")
[ "$out" = "2 200" ] && [ "$(od -An -tx1 -j7 -N1 "$W/a.h2c" | tr -d ' ')" = 01 ] &&
	ok "h2c (http-notls-downstream): curl --http2-prior-knowledge, answer" || fail "h2c: $out"
# malformed HTTP/2: garbage after the preface, a bad preface; petrel
# closes those connections and goes on answering
# (each in a subshell that ignores SIGPIPE: petrel may close first)
raw() { ( trap '' PIPE; exec 5<>/dev/tcp/$NET.3/80 && "$@" >&5 ) 2>/dev/null; }
raw bash -c "printf 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'; head -c 3000 /dev/urandom"
raw printf 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x04\x04\x00\x00\x00\x00\x00\x00\xff\xff\x07\x00\x00\x00\x00\x00'
raw printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'
raw bash -c "head -c 5000 /dev/urandom"
out=$(curl -s --http2-prior-knowledge --max-time 5 -o /dev/null -w '%{http_code}' \
	"http://$NET.3/dns-query?dns=AAABAAABAAAAAAAAA3d3dwJ6egAAAQAB")
[ "$out" = 200 ] && ok "answering after malformed HTTP/2 input" || fail "after malformed input: $out"

# ------------------------------------------------------------ DDR (RFC 9462)
# petrel under test serves DoH on $NET.1@443 and DoT on $NET.1@853
out=$(dig +time=5 +tries=1 @$NET.1 _dns.resolver.arpa SVCB 2>&1)
echo "$out" | grep -q '^_dns.resolver.arpa.*SVCB[[:space:]]*1 doh.test. alpn="h2" port=443 ipv4hint=127.0.130.1 key7="/dns-query{?dns}"' &&
	ok "DDR: _dns.resolver.arpa SVCB 1: alpn h2, port 443, hint, dohpath" ||
	fail "DDR h2: $out"
echo "$out" | grep -q '^_dns.resolver.arpa.*SVCB[[:space:]]*2 doh.test. alpn="dot" port=853 ipv4hint=127.0.130.1$' &&
	ok "DDR: _dns.resolver.arpa SVCB 2: alpn dot, port 853, hint" ||
	fail "DDR dot: $out"
out=$(dig +time=5 +tries=1 @$NET.1 _dns.resolver.arpa A 2>&1)
echo "$out" | grep -q "status: NOERROR" && echo "$out" | grep -q "ANSWER: 0" &&
	ok "DDR: other types get NODATA" || fail "DDR A: $out"
out=$(dig +time=5 +tries=1 @$NET.3 -p 80 _dns.resolver.arpa SVCB 2>&1)
echo "$out" | grep -q "SVCB.*alpn" && fail "h2c petrel advertised DDR: $out" ||
	ok "DDR: an h2c-only petrel advertises nothing"
out=$(kdig +tls-ca=$W/ca.pem +tls-hostname=doh.test +time=5 +retry=0 +tls @$NET.1 -p 853 www.local.zz A 2>&1)
echo "$out" | grep -q "192.0.2.9" && ok "the advertised DoT endpoint answers (kdig +tls)" ||
	fail "DoT endpoint: $out"

# ------------------------------------------------------------ forwarding over DoH
q() { dig +time=5 +tries=1 @$NET.1 "$@" 2>&1; }
out=$(q www.up.zz A)
echo "$out" | grep -q "^www.up.zz.*192.0.2.1" && ok "forward over DoH (name verified): answer" ||
	fail "forward over DoH: $out"
out=$(q www.ip.zz A)
echo "$out" | grep -q "status: NXDOMAIN" && echo "$out" | grep -q "zz.*SOA" &&
	ok "forward over DoH (IP address verified, no name): answer" || fail "DoH by IP: $out"
for z in badca dead wrongname badpath; do
	out=$(q www.$z.zz A)
	if echo "$out" | grep -q "status: SERVFAIL" && echo "$out" | grep -q "EDE: 2[23]"; then
		ok "$z: SERVFAIL with EDE $(echo "$out" | grep -o "EDE: 2[23]" | head -1 | cut -c6-)"
	else
		fail "$z: expected SERVFAIL with EDE 22/23: $out"
	fi
done
grep -q "TLS upstream $NET.4@443#doh.test not used for 60 s: certificate verify failed" "$W/petrel.log" &&
	ok "untrusted CA logged" || fail "no certificate failure for $NET.4 in the log"
grep -q "TLS upstream $NET.6@443#wrong.test not used for 60 s: certificate verify failed: hostname mismatch" "$W/petrel.log" &&
	ok "wrong name logged as a hostname mismatch" || fail "no hostname mismatch for $NET.6 in the log"
# (the connection to $NET.2 is open from the query above: the window
# between T0 and T1 must hold no new connection to it)
T0=$(date +%s.%N)
DIGS=()
for i in $(seq 20); do
	dig +time=5 +tries=1 @$NET.1 p$i.up.zz A > "$W/par.$i" 2>&1 &
	DIGS+=($!)
done
wait "${DIGS[@]}"
T1=$(date +%s.%N)
n=$(cat "$W"/par.* | grep -c "status: NXDOMAIN")
[ "$n" = 20 ] && ok "20 concurrent queries forwarded over DoH: 20 answers" ||
	fail "20 concurrent queries over DoH: $n answers"
# kdig +https to petrel, answered from upstream over DoH
out=$($KD +https www.up.zz A 2>&1)
echo "$out" | grep -q "192.0.2.1" && ok "DoH client to DoH upstream: answer" || fail "DoH to DoH: $out"

# the counters: queries over TLS (DoT and DoH) and over HTTPS
st=$("$PETREL_CONTROL" -c "$W/petrel.conf" stats_noreset 2>&1)
https=$(echo "$st" | awk -F= '/^total.num.query.https=|^num.query.https=/ { print $2; exit }')
tls=$(echo "$st" | awk -F= '/^total.num.query.tls=|^num.query.tls=/ { print $2; exit }')
[ "${https:-0}" -ge 8 ] && [ "${tls:-0}" -gt "${https:-0}" ] &&
	ok "stats: num.query.https=$https, num.query.tls=$tls (DoT and DoH)" ||
	fail "stats: https=$https tls=$tls: $(echo "$st" | grep query.tls -A2)"

kill -0 "${IT_PIDS[1]}" 2>/dev/null && kill -0 "${IT_PIDS[2]}" 2>/dev/null &&
	kill -0 "${IT_PIDS[3]}" 2>/dev/null && kill -0 "${IT_PIDS[4]}" 2>/dev/null &&
	ok "every petrel still running" || fail "a petrel died"

# ------------------------------------------------------------ edns-tcp-keepalive
out=$(dig +tcp +keepalive +time=5 +tries=1 @$NET.1 www.local.zz A 2>&1)
echo "$out" | grep -q "TCP KEEPALIVE: 12.0 secs" && echo "$out" | grep -q 192.0.2.9 &&
	ok "edns-tcp-keepalive over TCP: TIMEOUT 12.0 s" || fail "keepalive: $out"
out=$(dig +tcp +time=5 +tries=1 @$NET.1 www.local.zz A 2>&1)
echo "$out" | grep -q "KEEPALIVE" && fail "keepalive without asking: $out" ||
	ok "no keepalive option when the query has none"
out=$(dig +keepalive +time=5 +tries=1 @$NET.1 www.local.zz A 2>&1)
echo "$out" | grep -q "KEEPALIVE" && fail "keepalive over UDP: $out" ||
	ok "no keepalive option over UDP"

# ------------------------------------------------------------ session tickets
# tls-session-ticket-keys: a session survives a restart with the same key
# file, and a rotation (a new key first, the old one after it); with the
# old key gone it does not (a new full handshake)
openssl rand 80 > "$W/tk1"
openssl rand 80 > "$W/tk2"
tk_conf() { # tk_conf KEYFILE...: petrel "tk" on $NET.10@443
	{
		echo "server:"
		echo "  interface: $NET.10@443"
		common
		for k in "$@"; do echo "  tls-session-ticket-keys: \"$W/$k\""; done
		echo "forward-zone:"
		echo "  name: \".\""
		echo "  forward-addr: $NET.9@53"
	} > "$W/tk.conf"
}
tk_run() { # tk_run IN|OUT KEYFILE...: New or Reused
	local io=$1 pid
	shift
	tk_conf "$@"
	"$PETREL" -d -c "$W/tk.conf" > "$W/tk.log" 2>&1 &
	pid=$!
	for i in $(seq 50); do
		grep -q "worker ready" "$W/tk.log" && break
		sleep 0.1
	done
	if [ "$io" = OUT ]; then
		timeout 5 openssl s_client -connect $NET.10:443 -alpn h2 -ign_eof \
			-CAfile "$W/ca.pem" -sess_out "$W/sess" < /dev/null 2>&1 |
			tr -d '\0' | grep -E -o "^(New|Reused)"
	else
		timeout 5 openssl s_client -connect $NET.10:443 -alpn h2 \
			-CAfile "$W/ca.pem" -sess_in "$W/sess" < /dev/null 2>&1 |
			tr -d '\0' | grep -E -o "^(New|Reused)"
	fi
	kill $pid; wait $pid 2>/dev/null
}
r=$(tk_run OUT tk1)
[ "$r" = New ] && ok "session ticket with tk1: a new session" || fail "first session: $r"
r=$(tk_run IN tk1)
[ "$r" = Reused ] && ok "petrel restarted, same ticket key: session resumed" || fail "same key: $r"
r=$(tk_run IN tk2 tk1)
[ "$r" = Reused ] && ok "key rotated (tk2 first, tk1 after): old ticket still resumes" || fail "rotation: $r"
r=$(tk_run IN tk2)
[ "$r" = New ] && ok "old key dropped: full handshake" || fail "dropped key: $r"

# ------------------------------------------------------------ the capture
sleep 0.5
kill -INT $TSPID 2>/dev/null
for i in $(seq 50); do kill -0 $TSPID 2>/dev/null || break; sleep 0.1; done
"$TSHARK" -n -r "$W/lo.pcap" -T fields -E separator=/t -e ip.src -e ip.dst \
	-e frame.protocols -e tcp.dstport -e tcp.len -e tls.handshake.type \
	-e tcp.analysis.retransmission -e tcp.flags.syn -e frame.time_epoch \
	> "$W/pkts.txt" 2>/dev/null
"$TSHARK" -n -r "$W/lo.pcap" -Y 'frame contains 02:7a:7a:00' -T fields \
	-e ip.src -e ip.dst > "$W/zz.txt" 2>/dev/null
# packets to the DoH upstreams (only the petrel under test talks to them;
# its source address is the kernel's choice on lo)
count() { awk -F'\t' "$1 { n++ } END { print n + 0 }" "$W/pkts.txt"; }
n=$(count "\$2 == \"$NET.2\" && \$6 ~ /(^|,)1(,|\$)/")
[ "$n" -ge 1 ] && ok "capture holds the ClientHellos to $NET.2 ($n)" ||
	fail "capture has no ClientHello to $NET.2 (capture broken?)"
for a in 2 4 5 6 7 8; do
	ip=$NET.$a
	n=$(count "\$2 == \"$ip\" && \$3 ~ /:udp/")
	[ "$n" = 0 ] && ok "$ip: no UDP" || fail "$ip: $n UDP packets"
	n=$(count "\$2 == \"$ip\" && \$3 ~ /:tcp/ && \$4 != 443")
	[ "$n" = 0 ] && ok "$ip: TCP only to port 443" || fail "$ip: $n TCP packets to other ports"
	n=$(count "\$2 == \"$ip\" && \$5 > 0 && \$3 !~ /:tls/ && \$7 == \"\"")
	[ "$n" = 0 ] && ok "$ip: every TCP payload is TLS" || fail "$ip: $n TCP payloads that are not TLS"
	n=$(grep -c "	$ip\$" "$W/zz.txt")
	[ "$n" = 0 ] && ok "$ip: no query name in clear" || fail "$ip: $n packets with a query name in clear"
done
n=$(count "\$2 == \"$NET.2\" && \$8 == 1 && \$9 >= $T0 && \$9 <= $T1")
[ "$n" = 0 ] && ok "the 20 concurrent queries reused the open HTTP/2 connection" ||
	fail "$n new connections to $NET.2 for the 20 concurrent queries"
n=$(count "\$2 == \"$NET.7\" && \$8 == 1")
[ "$n" -ge 1 ] && ok "$NET.7: connection attempted (and refused)" || fail "$NET.7: no SYN seen"

# ------------------------------------------------------------ the end
kill -TERM "${IT_PIDS[@]}" 2>/dev/null
wait "${IT_PIDS[@]}" 2>/dev/null

finish
