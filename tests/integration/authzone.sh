#!/bin/bash
# tests/integration/authzone.sh - auth-zone against real NSD servers
# (make check-authzone; needs root for port 53 on 127.0.120.0/24, nsd,
# dig, ldns-signzone, ldns-notify; about 20 s).
#
#   127.0.120.1   NSD: the root server of the hints (stopped half-way)
#   127.0.120.2   NSD: the TLDs zz. and yy.
#   127.0.120.3   NSD: the primary (distribution server): the root zone
#                 with a ZONEMD, signed., badkey. (TSIG), zmd. (wrong
#                 ZONEMD)
#   127.0.120.4   NSD: the signed TLDs sec., sectamp., secother. (their DS
#                 in the signed root), secbad. (the root's DS is another
#                 key's) and unsig. (no DS), stopped half-way
#   127.0.120.5/6 ixfr_server.pl: IXFR served; IXFR refused (NOTIMP)
#   127.0.120.10  petrel, port 53
#   127.0.120.11  petrel with the validator: ZONEMD checked with DNSSEC
#   127.0.120.20  http_server.pl, port 8080: url: over HTTP (chunked)
#   127.0.120.21/22 openssl s_server -WWW, port 8443: url: over HTTPS, a
#                 certificate in tls-cert-bundle / one that is not
#
# Checks: the root is transferred (AXFR, ZONEMD verified) and written to
# the zonefile; with the root server stopped, names still resolve (RFC
# 8806, for-upstream); a change on the primary plus a NOTIFY is served
# within 2 s; a zone with a wrong ZONEMD is refused; a TSIG-signed
# transfer works and one with the wrong secret is refused; ZONEMD with
# DNSSEC (a signed root copy used, a tampered ZONEMD and a wrong key
# refused, a refused for-upstream zone resolved from its servers; TLD
# copies below the root's trust anchor: the DNSKEY validated through the
# validator, the copy used with AD, a tampered ZONEMD, a key outside the
# DS chain and a bogus DNSKEY lookup refused, an insecure delegation: the
# digest alone); url:
# downloads over HTTP and HTTPS (verified), at start and at the SOA
# refresh, written to the zonefile, a bad URL a load error; for-downstream
# answers carry AA (answer, NXDOMAIN with SOA); the control commands.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${PETREL:=$here/../../petrel}"
: "${PETREL_CONTROL:=$here/../../petrel-control}"
PA=127.0.120.10

it_suite authzone
W=$IT_WORK

# refused ZONE REASON OK FAIL: the validating petrel answers www.ZONE. A
# with SERVFAIL and its log says the copy of ZONE. was refused for REASON
# (a regular expression): "ok OK", else "FAIL FAIL: 'status'" and the
# log's lines about ZONE
refused() {
	local r
	r=$(dig +norec +time=1 +tries=1 @$PV "www.$1." A | grep -o 'status: [A-Z]*')
	[ "$r" = "status: SERVFAIL" ] &&
		grep -q "auth-zone $1\.: .*refused, not used: $2" "$W/petrel-v.log" &&
		ok "$3" ||
		{ bad "$4: '$r'"; grep "$1" "$W/petrel-v.log"; }
}

# server_conf ADDR THREADS NAME MODULES: the server: clause both petrels
# start with (port 53 on ADDR, pidfile NAME.pid, module-config MODULES);
# the lines that differ follow it
server_conf() {
	cat <<EOF
server:
  interface: $1
  port: 53
  do-ip6: no
  num-threads: $2
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "$W"
  pidfile: "$W/$3.pid"
  use-syslog: no
  verbosity: 1
  access-control: 127.0.0.0/8 allow
  do-not-query-localhost: no
  qname-minimisation: no
  module-config: "$4"
EOF
}

# azone NAME WORD...: an auth-zone clause, one line per WORD: up
# (for-upstream: yes, for-downstream: no), down (for-downstream: yes), zmd
# (zonemd-check: yes), strict (zonemd-reject-absence: yes), file=PATH
# (zonefile: "PATH"); any other WORD is a line as it is
azone() {
	local w
	echo "auth-zone:"
	echo "  name: $1"
	shift
	for w in "$@"; do
		case $w in
		up) printf '  for-upstream: yes\n  for-downstream: no\n' ;;
		down) echo "  for-downstream: yes" ;;
		zmd) echo "  zonemd-check: yes" ;;
		strict) echo "  zonemd-reject-absence: yes" ;;
		file=*) echo "  zonefile: \"${w#file=}\"" ;;
		*) echo "  $w" ;;
		esac
	done
}

# ---- zones ----
root_zone() { # serial [extra lines]
	cat <<EOF
\$TTL 3600
.                 86400 IN SOA a.root-servers.net. hostmaster.root. $1 3600 600 604800 300
.                 518400 IN NS a.root-servers.net.
a.root-servers.net. 518400 IN A 127.0.120.1
zz.               172800 IN NS ns1.zz.
ns1.zz.           172800 IN A 127.0.120.2
signed.           172800 IN NS ns1.zz.
EOF
	[ -n "${2:-}" ] && printf '%b\n' "$2"
}
root_zone 2026112401 > "$W/root.src"
ldns-signzone -Z -z 1:1 -f "$W/root.zone" "$W/root.src" . >/dev/null 2>&1 ||
	{ echo "ldns-signzone failed"; exit 1; }
cat > "$W/tld.zz.zone" <<EOF
\$TTL 3600
zz.      IN SOA ns1.zz. h.zz. 1 3600 600 604800 300
zz.      IN NS ns1.zz.
ns1.zz.  IN A 127.0.120.2
www.zz.  IN A 192.0.2.100
EOF
cat > "$W/tld.yy.zone" <<EOF
\$TTL 3600
yy.      IN SOA ns1.zz. h.zz. 1 3600 600 604800 300
yy.      IN NS ns1.zz.
www.yy.  IN A 192.0.2.101
EOF
cat > "$W/signed.zone" <<EOF
\$TTL 3600
signed.        IN SOA ns1.zz. h.signed. 7 3600 600 604800 300
signed.        IN NS ns1.zz.
www.signed.    IN A 192.0.2.7
*.wild.signed. IN TXT "wildcard"
alias.signed.  IN CNAME www.signed.
EOF
sed 's/signed\./badkey./g' "$W/signed.zone" > "$W/badkey.zone"
# timers.: SOA refresh 1 s, retry 1 s, expire 4 s
timers_zone() {
	cat <<EOF
\$TTL 60
timers.      IN SOA ns1.zz. h.timers. $1 1 1 4 60
timers.      IN NS ns1.zz.
www.timers.  IN A 192.0.2.$1
EOF
}
timers_zone 1 > "$W/timers.zone"
# zmd.: a ZONEMD computed, then a record changed after it
sed 's/signed\./zmd./g' "$W/signed.zone" > "$W/zmd.src"
ldns-signzone -Z -z 1:1 -f "$W/zmd.zone" "$W/zmd.src" zmd. >/dev/null 2>&1
sed -i 's/192\.0\.2\.7/192.0.2.66/' "$W/zmd.zone"

K1=$(printf 'petrel-authzone-test-key-one' | base64)
K2=$(printf 'the-secret-that-nsd-has-two!' | base64)
K2WRONG=$(printf 'a-secret-that-nsd-does-not!!' | base64)

nsd_conf() { # name ip extra-zone-lines...
	local n=$1 ip=$2 d="$W/nsd-$1"
	shift 2
	mkdir -p "$d"
	{
		echo "server:"
		echo "  ip-address: $ip"
		echo "  port: 53"
		echo "  username: \"\""
		echo "  chroot: \"\""
		echo "  zonesdir: \"$W\""
		echo "  pidfile: \"$d/nsd.pid\""
		echo "  database: \"\""
		echo "  zonelistfile: \"$d/zone.list\""
		echo "  xfrdfile: \"$d/xfrd.state\""
		echo "  xfrdir: \"$d\""
		echo "  logfile: \"$d/nsd.log\""
		echo "  verbosity: 1"
		echo "  server-count: 1"
		echo "  reuseport: no"
		echo "remote-control:"
		echo "  control-enable: no"
		echo "key:"
		echo "  name: k1"
		echo "  algorithm: hmac-sha256"
		echo "  secret: \"$K1\""
		echo "key:"
		echo "  name: k2"
		echo "  algorithm: hmac-sha256"
		echo "  secret: \"$K2\""
		printf '%b\n' "$*"
	} > "$d/nsd.conf"
}
start_nsd() { # name ip
	local d="$W/nsd-$1" i
	/usr/sbin/nsd -c "$d/nsd.conf" -P "$d/nsd.pid" >/dev/null 2>&1
	for i in $(seq 50); do
		[ -s "$d/nsd.pid" ] && dig +time=1 +tries=1 @"$2" . SOA \
			>/dev/null 2>&1 && break
		sleep 0.1
	done
	it_track_pidfile "$d/nsd.pid"
	[ -s "$d/nsd.pid" ] && it_track "$(cat "$d/nsd.pid")"
}
nsd_conf root 127.0.120.1 "zone:\n  name: \".\"\n  zonefile: \"root.zone\""
nsd_conf tld 127.0.120.2 "zone:\n  name: zz.\n  zonefile: tld.zz.zone\nzone:\n  name: yy.\n  zonefile: tld.yy.zone\nzone:\n  name: signed.\n  zonefile: signed.zone"
XFR="  provide-xfr: 127.0.0.0/8 NOKEY"
nsd_conf primary 127.0.120.3 "zone:\n  name: \".\"\n  zonefile: root.zone\n$XFR\nzone:\n  name: signed.\n  zonefile: signed.zone\n  provide-xfr: 127.0.0.0/8 k1\nzone:\n  name: badkey.\n  zonefile: badkey.zone\n  provide-xfr: 127.0.0.0/8 k2\nzone:\n  name: zmd.\n  zonefile: zmd.zone\n$XFR\nzone:\n  name: timers.\n  zonefile: timers.zone\n$XFR"
for s in "root 127.0.120.1" "tld 127.0.120.2" "primary 127.0.120.3"; do
	start_nsd $s
done
dig +short @127.0.120.3 . SOA | grep -q 2026112401 ||
	{ echo "the NSD primary does not serve the root"; cat "$W"/nsd-*/nsd.log; exit 1; }

# IXFR: two small primaries (ixfr_server.pl), one serving the difference,
# one refusing IXFR (NOTIMP); petrel has serial 1 of both from a zone file
# older than the SOA refresh, so it asks at once
for z in ixfr noixfr; do
	cat > "$W/$z.copy" <<EOF
$z.      3600 IN SOA ns1.zz. h.$z. 1 3600 600 604800 300
$z.      3600 IN NS ns1.zz.
www.$z.  3600 IN A 192.0.2.1
EOF
	touch -d '2 hours ago' "$W/$z.copy"
done
perl "$here/ixfr_server.pl" 127.0.120.5 ixfr ixfr > "$W/ixfr.log" 2>&1 &
it_track $!
perl "$here/ixfr_server.pl" 127.0.120.6 noixfr notimp > "$W/noixfr.log" 2>&1 &
it_track $!
for ip in 127.0.120.5 127.0.120.6; do
	for i in $(seq 100); do
		(exec 3<>"/dev/tcp/$ip/${IXFR_PORT:-53}") 2>/dev/null && break
		sleep 0.1
	done
done

# url: downloads: an HTTP server (http_server.pl, chunked) on .20, HTTPS
# (openssl s_server -WWW, a body without length) on .21 with a
# certificate in petrel's tls-cert-bundle, and on .22 with one that is not
web_zone() { # zone serial address
	cat <<EOF
\$TTL 60
$1.      IN SOA ns1.zz. h.$1. $2 1 1 600 60
$1.      IN NS ns1.zz.
www.$1.  IN A $3
EOF
}
mkdir -p "$W/www"
web_zone web 1 192.0.2.31 > "$W/www/web.zone"
web_zone webs 1 192.0.2.32 > "$W/www/webs.zone"
web_zone webbad 1 192.0.2.33 > "$W/www/webbad.zone"
for h in 21 22; do
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-days 2 -subj "/CN=127.0.120.$h" \
		-addext "subjectAltName=IP:127.0.120.$h" \
		-keyout "$W/web$h.key" -out "$W/web$h.pem" >/dev/null 2>&1 ||
		{ echo "openssl req failed"; exit 1; }
done
cp "$W/web21.pem" "$W/ca.pem"
perl "$here/http_server.pl" 127.0.120.20 8080 "$W/www" > "$W/http.log" 2>&1 &
it_track $!
for h in 21 22; do
	( cd "$W/www" && exec openssl s_server -WWW -quiet -accept 127.0.120.$h:8443 \
		-cert "$W/web$h.pem" -key "$W/web$h.key" ) > "$W/https$h.log" 2>&1 &
	it_track $!
done
for hp in 127.0.120.20/8080 127.0.120.21/8443 127.0.120.22/8443; do
	for i in $(seq 100); do
		(exec 3<>"/dev/tcp/$hp") 2>/dev/null && break
		sleep 0.1
	done
done

cat > "$W/hints" <<EOF
.                   3600000 NS a.root-servers.net.
a.root-servers.net. 3600000 A 127.0.120.1
EOF
server_conf "$PA" 2 petrel "iterator" > "$W/petrel.conf"
cat >> "$W/petrel.conf" <<EOF
  root-hints: "$W/hints"
  tls-cert-bundle: "$W/ca.pem"
remote-control:
  control-enable: yes
  control-interface: "$W/control.sock"
  control-use-cert: no
tsig-key:
  name: k1
  algorithm: hmac-sha256
  secret: "$K1"
tsig-key:
  name: k2
  algorithm: hmac-sha256
  secret: "$K2WRONG"
EOF
{
	azone '"."' "primary: 127.0.120.3" "allow-notify: 127.0.0.1" \
		file="$W/root.copy" up zmd strict
	azone signed. "primary: 127.0.120.3 k1" down
	azone badkey. "primary: 127.0.120.3 k2" down
	azone zmd. "primary: 127.0.120.3" down zmd
	azone ixfr. "primary: 127.0.120.5" file="$W/ixfr.copy" down
	azone noixfr. "primary: 127.0.120.6" file="$W/noixfr.copy" down
	azone timers. "primary: 127.0.120.9" "primary: 127.0.120.3" down
	azone web. 'url: "http://127.0.120.20:8080/web.zone"' \
		file="$W/web.copy" down
	azone webs. 'url: "https://127.0.120.21:8443/webs.zone"' down
	azone webbad. 'url: "https://127.0.120.22:8443/webbad.zone"' down
} >> "$W/petrel.conf"
ctl() { "$PETREL_CONTROL" -c "$W/petrel.conf" "$@"; }
"$PETREL" -d -c "$W/petrel.conf" >"$W/petrel.log" 2>&1 &
PID=$!
it_track $PID
for i in $(seq 100); do
	ctl list_auth_zones 2>/dev/null | grep -q "^\.	.*serial 2026112401" && break
	sleep 0.1
done
if ctl list_auth_zones | grep -q "^\.	.*serial 2026112401"; then
	ok "the root is transferred (serial 2026112401, ZONEMD checked)"
else
	bad "the root is not transferred"; ctl list_auth_zones; tail "$W/petrel.log"
fi
grep -q "2026112401" "$W/root.copy" 2>/dev/null && ok "the zonefile is written" ||
	bad "no zonefile written"

# ---- RFC 8806: the root server stopped, names still resolve ----
it_kill "$(cat "$W/nsd-root/nsd.pid")"
dig +short @127.0.120.1 . SOA +time=1 +tries=1 >/dev/null 2>&1 &&
	bad "the root server still answers"
r=$(dig +short +time=2 +tries=1 @$PA www.zz. A)
[ "$r" = 192.0.2.100 ] && ok "www.zz. resolves with the root server stopped" ||
	bad "www.zz. with the root server stopped: '$r'"

# ---- ZONEMD verified with DNSSEC (RFC 8976 4), a second petrel ----
# (127.0.120.11, validator on) with zone files signed here: the root with
# its trust anchor (RFC 8806), used; tampered. (ZONEMD digest changed
# after signing) and wrongkey. (the anchor is another key) refused, so
# SERVFAIL downstream; zz. for-upstream with a wrong ZONEMD and
# fallback-enabled: refused, the iterator asks zz.'s server instead
# (without fallback-enabled its names would be SERVFAIL, as in Unbound).
PV=127.0.120.11
( cd "$W" && ldns-keygen -a ECDSAP256SHA256 -k . ) > "$W/kroot" 2>/dev/null
( cd "$W" && ldns-keygen -a ECDSAP256SHA256 -k tampered. ) > "$W/ktamp" 2>/dev/null
( cd "$W" && ldns-keygen -a ECDSAP256SHA256 -k wrongkey. ) > "$W/kwrong" 2>/dev/null
( cd "$W" && ldns-keygen -a ECDSAP256SHA256 -k wrongkey. ) > "$W/kother" 2>/dev/null
# TLDs below the root's trust anchor, served by NSD on .4: sec., sectamp.
# and secother. signed (with a ZONEMD), their DS in the signed root;
# unsig. with a ZONEMD and no DS (an insecure delegation)
tldz() { # zone last-octet
	cat <<EOF
\$TTL 3600
$1.      IN SOA ns1.sec. h.$1. 5 3600 600 604800 300
$1.      IN NS ns1.sec.
www.$1.  IN A 192.0.2.$2
EOF
}
dsl=""
for z in sec sectamp secother; do
	( cd "$W" && ldns-keygen -a ECDSAP256SHA256 -k $z. ) > "$W/k$z" 2>/dev/null
	dsl="$dsl$(cat "$W/$(cat "$W/k$z").ds")\n"
done
( cd "$W" && ldns-keygen -a ECDSAP256SHA256 -k secother. ) > "$W/kseco2" 2>/dev/null
# secbad.: signed with one key, the root's DS is of another
( cd "$W" && ldns-keygen -a ECDSAP256SHA256 -k secbad. ) > "$W/ksecbad" 2>/dev/null
( cd "$W" && ldns-keygen -a ECDSAP256SHA256 -k secbad. ) > "$W/ksecbad2" 2>/dev/null
dsl="$dsl$(cat "$W/$(cat "$W/ksecbad2").ds")\n"
tldz secbad 45 > "$W/secbad.src"
ldns-signzone -Z -z 1:1 -f "$W/secbad.signed" "$W/secbad.src" "$W/$(cat "$W/ksecbad")" >/dev/null 2>&1
cp "$W/secbad.signed" "$W/secbad.copy"
tldz sec 41 > "$W/sec.src"; tldz sectamp 42 > "$W/sectamp.src"
tldz secother 43 > "$W/secother.src"; tldz unsig 44 > "$W/unsig.src"
for z in sec sectamp secother; do
	ldns-signzone -Z -z 1:1 -f "$W/$z.signed" "$W/$z.src" "$W/$(cat "$W/k$z")" >/dev/null 2>&1
done
ldns-signzone -Z -z 1:1 -f "$W/unsig.signed" "$W/unsig.src" unsig. >/dev/null 2>&1
cp "$W/sec.signed" "$W/sec.copy"
cp "$W/unsig.signed" "$W/unsig.copy"
awk '$4 == "ZONEMD" && !d { c = substr($8, 1, 1); $8 = (c == "0" ? "1" : "0") substr($8, 2); d = 1 } { print }' \
	"$W/sectamp.signed" > "$W/sectamp.copy"
# secother.'s copy: signed (ZONEMD and all) by a key not in the DS chain
ldns-signzone -Z -z 1:1 -f "$W/secother.copy" "$W/secother.src" "$W/$(cat "$W/kseco2")" >/dev/null 2>&1
root_zone 2026112401 "sec. 172800 IN NS ns1.sec.\nns1.sec. 172800 IN A 127.0.120.4\nsectamp. 172800 IN NS ns1.sec.\nsecother. 172800 IN NS ns1.sec.\nunsig. 172800 IN NS ns1.sec.\nsecbad. 172800 IN NS ns1.sec.\n$dsl" > "$W/sroot.src"
ldns-signzone -z 1:1 -f "$W/sroot.zone" "$W/sroot.src" "$W/$(cat "$W/kroot")" >/dev/null 2>&1
nsd_conf sec 127.0.120.4 "zone:\n  name: sec.\n  zonefile: sec.signed\nzone:\n  name: sectamp.\n  zonefile: sectamp.signed\nzone:\n  name: secother.\n  zonefile: secother.signed\nzone:\n  name: unsig.\n  zonefile: unsig.signed\nzone:\n  name: secbad.\n  zonefile: secbad.signed"
start_nsd sec 127.0.120.4
for z in tampered wrongkey; do
	sed "s/signed\./$z./g" "$W/signed.zone" > "$W/$z.src"
done
ldns-signzone -z 1:1 -f "$W/tampered.zone" "$W/tampered.src" "$W/$(cat "$W/ktamp")" >/dev/null 2>&1
# one hex digit of the ZONEMD digest changed: its RRSIG no longer fits
awk '$4 == "ZONEMD" && !d { c = substr($8, 1, 1); $8 = (c == "0" ? "1" : "0") substr($8, 2); d = 1 } { print }' \
	"$W/tampered.zone" > "$W/tampered.tmp" && mv "$W/tampered.tmp" "$W/tampered.zone"
ldns-signzone -z 1:1 -f "$W/wrongkey.zone" "$W/wrongkey.src" "$W/$(cat "$W/kwrong")" >/dev/null 2>&1
# zz. with a ZONEMD, then www.zz. changed in the copy
ldns-signzone -Z -z 1:1 -f "$W/zz.copy" "$W/tld.zz.zone" zz. >/dev/null 2>&1
sed -i 's/192\.0\.2\.100/192.0.2.250/' "$W/zz.copy"
cat "$W/$(cat "$W/kroot").ds" "$W/$(cat "$W/ktamp").ds" "$W/$(cat "$W/kother").ds" > "$W/anchors"
grep -q "RRSIG.*ZONEMD" "$W/sroot.zone" && grep -q "RRSIG.*ZONEMD" "$W/tampered.zone" &&
	grep -q "RRSIG.*ZONEMD" "$W/wrongkey.zone" && grep -q "ZONEMD" "$W/zz.copy" &&
	[ "$(grep -c DS "$W/anchors")" = 3 ] && [ "$(grep -c "	DS	" "$W/sroot.zone")" = 4 ] &&
	grep -q "RRSIG.*ZONEMD" "$W/sec.copy" && grep -q "RRSIG.*ZONEMD" "$W/secother.copy" &&
	grep -q "ZONEMD" "$W/unsig.copy" &&
	dig +short +time=1 +tries=1 @127.0.120.4 sec. SOA | grep -q "^ns1.sec. " ||
	{ echo "ldns-keygen/ldns-signzone failed"; exit 1; }
{
	server_conf "$PV" 1 petrel-v "validator iterator"
	echo "  trust-anchor-file: \"$W/anchors\""
	echo "  root-hints: \"$W/hints\""
} > "$W/petrel-v.conf"
{
	azone '"."' file="$W/sroot.zone" up zmd strict
	azone tampered. file="$W/tampered.zone" down zmd
	azone wrongkey. file="$W/wrongkey.zone" down zmd
	azone zz. file="$W/zz.copy" up zmd "fallback-enabled: yes"
	azone sec. file="$W/sec.copy" up zmd strict
	for z in sectamp secother secbad; do
		azone $z. file="$W/$z.copy" down zmd
	done
	azone unsig. file="$W/unsig.copy" up zmd
} >> "$W/petrel-v.conf"
"$PETREL" -d -c "$W/petrel-v.conf" >"$W/petrel-v.log" 2>&1 &
PIDV=$!
it_track $PIDV
for i in $(seq 100); do
	dig +time=1 +tries=1 @$PV . SOA >/dev/null 2>&1 && break
	sleep 0.1
done
# the TLD copies below the root's anchor (zz. and the sec. ones): held
# until the worker's lookup of their DNSKEY (validated from the root's DS,
# or proven insecure) comes back
for i in $(seq 100); do
	[ "$(grep -c "auth-zone \(zz\|sec\|sectamp\|secother\|secbad\|unsig\)\.: .*\(verified and used\|refused, not used\)" "$W/petrel-v.log")" -ge 6 ] && break
	sleep 0.1
done
out=$(dig +dnssec +time=2 +tries=1 @$PV . SOA)
echo "$out" | grep -q "status: NOERROR" && echo "$out" | grep -q "flags: qr rd ra ad" &&
	! grep -q "auth-zone \.: .*refused" "$W/petrel-v.log" &&
	ok "a signed root with a DNSSEC-verified ZONEMD is used (root server stopped; . SOA validated: ad)" ||
	{ bad "the signed root:"; echo "$out"; cat "$W/petrel-v.log"; }
r=$(dig +short +time=2 +tries=1 @$PV www.zz. A)
[ "$r" = 192.0.2.100 ] && grep -q "auth-zone zz\.: .*refused, not used" "$W/petrel-v.log" &&
	ok "a for-upstream zone refused for its ZONEMD, fallback-enabled: the iterator asks its server (www.zz. $r)" ||
	{ bad "zz. refused for-upstream: '$r'"; grep "zz\." "$W/petrel-v.log"; }
refused tampered "the ZONEMD RRSIG does not verify" \
	"a tampered ZONEMD (its RRSIG fails) is refused: SERVFAIL" \
	"tampered ZONEMD"
refused wrongkey "the DNSKEY set does not verify with the trust anchor" \
	"a zone signed by a key other than its trust anchor is refused: SERVFAIL" \
	"wrong key"
it_kill "$(cat "$W/nsd-sec/nsd.pid")"
dig +short @127.0.120.4 sec. SOA +time=1 +tries=1 >/dev/null 2>&1 &&
	bad "the TLDs' server still answers"
out=$(dig +dnssec +time=2 +tries=1 @$PV www.sec. A)
echo "$out" | grep -q "status: NOERROR" && echo "$out" | grep -q "flags: qr rd ra ad" &&
	echo "$out" | grep -q "www.sec.*A.*192.0.2.41" &&
	grep -q "auth-zone sec\.: serial 5 from .*sec.copy is verified and used" "$W/petrel-v.log" &&
	! grep -q "auth-zone sec\.: .*refused" "$W/petrel-v.log" &&
	ok "a TLD copy below the root's anchor: its DNSKEY validated through the validator, used (its server stopped; www.sec. validated: ad)" ||
	{ bad "the signed TLD copy:"; echo "$out"; grep "sec\." "$W/petrel-v.log"; }
refused sectamp "the ZONEMD RRSIG does not verify" \
	"a TLD copy with a tampered ZONEMD is refused: SERVFAIL" \
	"the tampered TLD copy"
refused secother "the zone's DNSKEY set is not the one validated" \
	"a TLD copy signed by a key outside the DS chain is refused: SERVFAIL" \
	"the TLD copy with another key"
refused secbad "the lookup of its DNSKEY through the validator is bogus" \
	"a TLD copy whose DNSKEY lookup is bogus (the DS is another key's) is refused: SERVFAIL" \
	"the TLD copy with a bogus lookup"
out=$(dig +dnssec +time=2 +tries=1 @$PV www.unsig. A)
echo "$out" | grep -q "www.unsig.*A.*192.0.2.44" && ! echo "$out" | grep -q "flags: qr rd ra ad" &&
	grep -q "auth-zone unsig\.: serial 5 from .*unsig.copy is verified and used" "$W/petrel-v.log" &&
	ok "a TLD copy under an insecure delegation: the ZONEMD digest alone, used (no ad)" ||
	{ bad "the unsigned TLD copy:"; echo "$out"; grep "unsig\." "$W/petrel-v.log"; }
it_kill $PIDV

# ---- a change on the primary + NOTIFY, served within 2 s ----
root_zone 2026112402 "yy. 172800 IN NS ns1.zz." > "$W/root.src"
ldns-signzone -Z -z 1:1 -f "$W/root.zone" "$W/root.src" . >/dev/null 2>&1
kill -HUP "$(cat "$W/nsd-primary/nsd.pid")"
for i in $(seq 50); do
	dig +short @127.0.120.3 . SOA | grep -q 2026112402 && break
	sleep 0.1
done
t0=$(date +%s%N)
ldns-notify -z . -s 2026112402 $PA >/dev/null 2>&1
got=""
while [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 2000 ]; do
	if ctl list_auth_zones | grep -q "^\.	.*serial 2026112402"; then
		got=$(( ($(date +%s%N) - t0) / 1000000 )); break
	fi
	sleep 0.05
done
if [ -n "$got" ]; then ok "NOTIFY: the new serial is in after $got ms"
else bad "NOTIFY: the new serial did not arrive within 2 s"; ctl list_auth_zones; fi
r=$(dig +short +time=2 +tries=1 @$PA www.yy. A)
[ "$r" = 192.0.2.101 ] && ok "www.yy. (the new delegation) resolves" ||
	bad "www.yy. after the change: '$r'"
# a NOTIFY from an address not allowed is refused
r=$(dig +time=1 +tries=1 +opcode=notify @$PA -b 127.0.120.99 . SOA 2>&1 | grep -o 'status: [A-Z]*')
[ "$r" = "status: REFUSED" ] && ok "a NOTIFY from outside allow-notify is REFUSED" ||
	bad "NOTIFY from outside allow-notify: '$r'"

# ---- ZONEMD wrong: refused ----
r=$(dig +norec +time=1 +tries=1 @$PA www.zmd. A | grep -o 'status: [A-Z]*')
[ "$r" = "status: SERVFAIL" ] && grep -q "zmd.: the zone from 127.0.120.3.* refused: the ZONEMD digest" "$W/petrel.log" &&
	ok "a zone with a wrong ZONEMD is refused" ||
	{ bad "the wrong ZONEMD: '$r'"; grep zmd "$W/petrel.log"; }

# ---- TSIG ----
for i in $(seq 30); do
	ctl list_auth_zones | grep -q "^signed\.	.*serial 7" && break; sleep 0.1
done
out=$(dig +norec +time=1 +tries=1 @$PA www.signed. A)
echo "$out" | grep -q "flags: qr aa" && echo "$out" | grep -q "192.0.2.7" &&
	ok "TSIG transfer (k1): for-downstream answers www.signed. with aa" ||
	{ bad "TSIG zone signed.:"; echo "$out"; ctl list_auth_zones; }
ctl list_auth_zones | grep "^badkey\." | grep -q "TSIG\|NOTAUTH\|BADSIG\|failed" &&
	[ "$(dig +norec +time=1 +tries=1 @$PA www.badkey. A | grep -o 'status: [A-Z]*')" = "status: SERVFAIL" ] &&
	ok "a transfer with the wrong TSIG secret is refused" ||
	{ bad "wrong TSIG secret:"; ctl list_auth_zones; }

# ---- for-downstream answers ----
out=$(dig +norec +time=1 +tries=1 @$PA nope.signed. A)
echo "$out" | grep -q "status: NXDOMAIN" && echo "$out" | grep -q "flags: qr aa" &&
	echo "$out" | grep -q "SOA" && ok "NXDOMAIN with aa and the SOA" ||
	{ bad "NXDOMAIN:"; echo "$out"; }
out=$(dig +norec +time=1 +tries=1 @$PA x.wild.signed. TXT)
echo "$out" | grep -q '"wildcard"' && ok "wildcard answer" || { bad "wildcard"; echo "$out"; }
out=$(dig +norec +time=1 +tries=1 @$PA alias.signed. A)
echo "$out" | grep -q "CNAME" && echo "$out" | grep -q "192.0.2.7" &&
	ok "CNAME followed inside the zone" || { bad "CNAME"; echo "$out"; }

# ---- IXFR: the difference applied; NOTIMP: AXFR instead ----
for z in ixfr noixfr; do
	for i in $(seq 30); do
		ctl list_auth_zones | grep -q "^$z\.	.*serial 2" && break; sleep 0.1
	done
done
[ "$(dig +short +norec +time=1 +tries=1 @$PA www.ixfr. A)" = 192.0.2.2 ] &&
	ctl list_auth_zones | grep -q "^ixfr\.	.*serial 2 from 127.0.120.5 by IXFR," &&
	grep -q "IXFR: difference 1 -> 2" "$W/ixfr.log" &&
	grep -q "^www.ixfr.*192.0.2.2" "$W/ixfr.copy" &&
	! grep -q "192.0.2.1" "$W/ixfr.copy" &&
	ok "IXFR: the difference 1 -> 2 is applied and written" ||
	{ bad "IXFR:"; ctl list_auth_zones; cat "$W/ixfr.log"; }
[ "$(dig +short +norec +time=1 +tries=1 @$PA www.noixfr. A)" = 192.0.2.2 ] &&
	ctl list_auth_zones | grep -q "^noixfr\.	.*serial 2 from 127.0.120.6 by AXFR" &&
	grep -q "IXFR: NOTIMP" "$W/noixfr.log" &&
	ok "a primary refusing IXFR (NOTIMP): AXFR instead" ||
	{ bad "IXFR fallback:"; ctl list_auth_zones; cat "$W/noixfr.log"; }

# ---- several primaries: the first is dead, the second serves ----
for i in $(seq 30); do
	ctl list_auth_zones | grep -q "^timers\.	.*	serial	serial 1, .*127\.0\.120\.3" && break; sleep 0.1
done
ctl list_auth_zones | grep -q "^timers\.	.*	serial	serial 1, .*127\.0\.120\.3" &&
	ok "the next primary is used when the first is dead" ||
	{ bad "fallback between primaries:"; ctl list_auth_zones; }
# ---- the SOA refresh timer (1 s): a change without NOTIFY ----
timers_zone 2 > "$W/timers.zone"
kill -HUP "$(cat "$W/nsd-primary/nsd.pid")"
got=""
for i in $(seq 50); do
	if [ "$(dig +short +norec +time=1 +tries=1 @$PA www.timers. A)" = 192.0.2.2 ]; then
		got=1; break
	fi
	sleep 0.1
done
[ -n "$got" ] && ok "the SOA refresh picks up a change without NOTIFY" ||
	{ bad "SOA refresh:"; ctl list_auth_zones; }

# ---- url: downloads (HTTP chunked, HTTPS verified, HTTPS refused) ----
for i in $(seq 50); do
	ctl list_auth_zones | grep -q "^webs\.	.*serial 1" &&
		ctl list_auth_zones | grep -q "^web\.	.*serial 1" && break
	sleep 0.1
done
out=$(dig +norec +time=1 +tries=1 @$PA www.web. A)
echo "$out" | grep -q "flags: qr aa" && echo "$out" | grep -q "192.0.2.31" &&
	grep -q "^www.web.*192.0.2.31" "$W/web.copy" 2>/dev/null &&
	ok "url: http:// (chunked) downloaded, answered with aa and written to the zonefile" ||
	{ bad "url: http://:"; echo "$out"; ctl list_auth_zones; cat "$W/http.log"; }
out=$(dig +norec +time=1 +tries=1 @$PA www.webs. A)
echo "$out" | grep -q "flags: qr aa" && echo "$out" | grep -q "192.0.2.32" &&
	ok "url: https:// with a certificate from tls-cert-bundle downloaded" ||
	{ bad "url: https://:"; echo "$out"; ctl list_auth_zones; grep webs "$W/petrel.log"; }
r=$(dig +norec +time=1 +tries=1 @$PA www.webbad. A | grep -o 'status: [A-Z]*')
[ "$r" = "status: SERVFAIL" ] &&
	ctl list_auth_zones | grep "^webbad\." | grep -q "certificate of 127.0.120.22 does not verify" &&
	ok "url: https:// with a certificate not in tls-cert-bundle is refused" ||
	{ bad "url: untrusted https: '$r'"; ctl list_auth_zones; grep webbad "$W/petrel.log"; }
# the SOA refresh (1 s) fetches a new serial from the URL
web_zone web 2 192.0.2.41 > "$W/www/web.zone"
got=""
for i in $(seq 50); do
	if [ "$(dig +short +norec +time=1 +tries=1 @$PA www.web. A)" = 192.0.2.41 ]; then
		got=1; break
	fi
	sleep 0.1
done
[ -n "$got" ] && grep -q "192.0.2.41" "$W/web.copy" &&
	ok "url: the SOA refresh downloads the new serial" ||
	{ bad "url: SOA refresh:"; ctl list_auth_zones; }
# a bad URL is a load error naming the file and line
printf 'server:\n  directory: "%s"\nauth-zone:\n  name: bad.\n  url: "ftp://127.0.120.20/x.zone"\n' "$W" > "$W/badurl.conf"
out=$(timeout 5 "$PETREL" -d -c "$W/badurl.conf" 2>&1 </dev/null)
echo "$out" | grep -q 'badurl.conf:5: .*url: expected http://' &&
	ok "a bad url: is a load error with the file and line" ||
	{ bad "bad url: '$out'"; }

# ---- control ----
[ "$(ctl auth_zone_transfer signed.)" = ok ] && ok "auth_zone_transfer" || bad "auth_zone_transfer"
[ "$(ctl auth_zone_reload .)" = ok ] && ok "auth_zone_reload (from the written zonefile)" ||
	bad "auth_zone_reload: $(ctl auth_zone_reload .)"
ctl auth_zone_reload nosuch. | grep -q "^error no auth-zone" && ok "auth_zone_reload of an unknown zone is an error" ||
	bad "auth_zone_reload nosuch."
# ---- the SOA expire (4 s): the primary stopped, the zone is dropped ----
it_kill "$(cat "$W/nsd-primary/nsd.pid")"
got=""
for i in $(seq 80); do
	r=$(dig +norec +time=1 +tries=1 @$PA www.timers. A | grep -o 'status: [A-Z]*')
	if [ "$r" = "status: SERVFAIL" ]; then got=1; break; fi
	sleep 0.1
done
[ -n "$got" ] && ctl list_auth_zones | grep -q "^timers\.	.*no-data" &&
	ok "the SOA expire drops the zone when no primary answers" ||
	{ bad "SOA expire: '$r'"; ctl list_auth_zones; }
kill -0 $PID 2>/dev/null && ok "petrel still runs" || bad "petrel died"
ctl list_auth_zones
finish
