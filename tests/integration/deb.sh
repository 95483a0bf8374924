#!/usr/bin/env bash
# tests/integration/deb.sh - the Debian package, built, installed and run
# as its systemd unit would run it (issue 31, "a package and a
# dashboard"; `make check-deb`).
#
# usage: tests/integration/deb.sh [-k]
#   -k  keep the work directory, the build directory and the package
#       installed (dpkg --purge petrel removes it)
# environment:
#   PETREL_DEB=path   test this .deb instead of building one
#   PETREL_SRCDIR=dir the source tree (default: two folders above this)
#
# Needs root, dpkg-buildpackage (debhelper: contrib/setup-debian.sh
# installs it), unshare and nsenter, nsd, dig, systemd-analyze, python3.
# No systemd runs on the machines it is meant for: it does what systemd
# would do, from the installed unit file.
#
# 1. Build: the source tree (its git files, committed or not: nothing of
#    the tree's own build) is copied to a scratch folder and built there
#    with `dpkg-buildpackage -b -us -uc` (DEB_BUILD_OPTIONS="parallel=2
#    nocheck"), so the tree's build is left as it was. The package's
#    version is configure.ac's.
# 2. Install with dpkg -i (apt-get install -f for missing dependencies),
#    on this machine; removed with dpkg --purge at the end (unless -k).
#    The user petrel exists, owns /var/lib/petrel; every program the
#    unit's Exec lines name is installed, with its manual page; the
#    config is a conffile; the unit is enabled the Debian way;
#    systemd-analyze verify passes on the installed unit.
# 3. Run: a private network namespace (unshare --net, loopback up; its
#    only interface is lo and no route leaves it, checked first),
#    where NSD on 127.0.240.2 serves a small unsigned root and zz.; a
#    config drop-in in /etc/petrel/petrel.conf.d/ points root-hints at
#    it (the stock config is used otherwise: it validates with the root
#    anchor), makes zz. insecure (domain-insecure: the test root cannot
#    be signed by the real root key) and opens the metrics endpoint on
#    127.0.240.1 with extended-statistics (the dashboard's rcode
#    panel). The unit's ExecStartPre lines run in order as root
#    (petrel-anchor cannot reach the network there, and writes its
#    built-in anchor, which -l prints), then its ExecStart line, with a
#    NOTIFY_SOCKET as systemd gives a Type=notify service: READY=1
#    comes, dig gets the answer, an answer from the unsigned root is
#    bogus (the anchor is in force), the process runs as the user
#    petrel, petrel-control status works, /metrics answers and the
#    Grafana dashboard names only metrics in it, SIGTERM stops it.
#    Every process is stopped at the end (it_track, trap).
# 4. dpkg -i again over it (what an upgrade does) keeps the anchor file,
#    a drop-in and the user; dpkg --purge removes the config, the anchor
#    state, the unit and its wants link.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${PETREL_SRCDIR:-$(cd "$HERE/../.." && pwd)}
KEEP=0
[ "${1:-}" = -k ] && KEEP=1 && IT_KEEP=1
. "$HERE/lib.sh"

need() {
	local t
	for t in "$@"; do
		command -v "$t" > /dev/null 2>&1 && continue
		echo "deb: $t is needed (contrib/setup-debian.sh installs it)"
		exit 1
	done
}
if [ "$(id -u)" != 0 ]; then
	echo "deb: needs root (dpkg -i, a network namespace, port 53)"
	exit 1
fi
need dpkg dpkg-deb unshare nsenter dig systemd-analyze python3 ip
[ -n "${PETREL_DEB:-}" ] || need dpkg-buildpackage dh
[ -x "$NSD" ] || { echo "deb: $NSD is needed"; exit 1; }

# the package goes on this machine and is purged at the end: not over
# one that is installed already
if dpkg-query -W -f='${Status}' petrel 2>/dev/null | grep -q 'ok installed'; then
	echo "deb: a petrel package is installed on this machine: this test would replace and purge it; remove it first (dpkg --purge petrel)"
	exit 1
fi

# ------------------------------------------------------------ 1. build
BUILD=$(mktemp -d /tmp/petrel-deb-build.XXXXXX) || exit 1
trap 'rm -rf "$BUILD"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
t0=$(date +%s)
version=$(sed -n 's/^AC_INIT(\[petrel\], *\[\([^]]*\)\].*/\1/p' "$SRC/configure.ac")
if [ -n "${PETREL_DEB:-}" ]; then
	DEB=$PETREL_DEB
	[ -f "$DEB" ] || { echo "deb: PETREL_DEB=$DEB: no such file"; rm -rf "$BUILD"; exit 1; }
	echo "deb: testing $DEB"
else
	if ! git -C "$SRC" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
		echo "deb: $SRC is no git work tree: build the .deb there with dpkg-buildpackage -b -us -uc and give it as PETREL_DEB=path"
		rm -rf "$BUILD"
		exit 1
	fi
	mkdir -p "$BUILD/src"
	(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -C "$BUILD/src" -xf -
	echo "deb: building the package in $BUILD (dpkg-buildpackage -b -us -uc)"
	if ! (cd "$BUILD/src" && DEB_BUILD_OPTIONS="parallel=2 nocheck" \
		dpkg-buildpackage -b -us -uc) > "$BUILD/build.log" 2>&1; then
		echo "deb: dpkg-buildpackage failed; the end of its log:"
		tail -30 "$BUILD/build.log"
		rm -rf "$BUILD"
		exit 1
	fi
	DEB=$(ls "$BUILD"/petrel_*.deb | head -1)
	echo "deb: built $(basename "$DEB") in $(( $(date +%s) - t0 )) s"
fi
# the files of the package, unpacked beside it: it_suite wants a petrel
dpkg-deb -x "$DEB" "$BUILD/root"
PETREL=$BUILD/root/usr/sbin/petrel
PETREL_CONTROL=$BUILD/root/usr/sbin/petrel-control

it_suite deb

NSF=""
DROPIN=/etc/petrel/petrel.conf.d/zz-petrel-check-deb.conf
INSTALLED=0
deb_cleanup() {
	it_cleanup
	if [ -n "$NSF" ]; then umount "$NSF" 2>/dev/null; rm -f "$NSF"; fi
	rm -f "$DROPIN"
	if [ "$INSTALLED" = 1 ] && [ "$KEEP" != 1 ]; then
		dpkg --purge petrel > "$BUILD/purge.log" 2>&1 ||
			{ echo "deb: dpkg --purge petrel failed:"; cat "$BUILD/purge.log"; }
	fi
	if [ -e "$BUILD/root.key.saved" ]; then
		mkdir -p /var/lib/petrel
		cp -p "$BUILD/root.key.saved" /var/lib/petrel/root.key
	fi
	if [ "$KEEP" = 1 ]; then echo "build directory kept: $BUILD" >&2
	else rm -rf "$BUILD"; fi
}
trap deb_cleanup EXIT

pkgver=$(dpkg-deb -f "$DEB" Version)
clver=$(sed -n '1s/^petrel (\([^)]*\)).*/\1/p' "$SRC/debian/changelog")
if [ -n "$version" ] && [ "$pkgver" = "$version" ] && [ "$clver" = "$version" ]; then
	ok "package version $pkgver = configure.ac's AC_INIT version = debian/changelog's"
else
	fail "versions: package '$pkgver', configure.ac '$version', debian/changelog '$clver'"
fi

# --------------------------------------------------------- 2. install
# an anchor file left by a petrel installed by hand is kept aside, and
# put back at the end: the test wants petrel-anchor to write a new one
if [ -e /var/lib/petrel/root.key ]; then
	cp -p /var/lib/petrel/root.key "$BUILD/root.key.saved"
fi
INSTALLED=1
if dpkg -i "$DEB" > "$IT_WORK/install.log" 2>&1; then
	ok "dpkg -i $(basename "$DEB")"
elif DEBIAN_FRONTEND=noninteractive apt-get install -f -y -q >> "$IT_WORK/install.log" 2>&1 &&
	dpkg-query -W -f='${Status}' petrel | grep -q 'ok installed'; then
	ok "dpkg -i, then apt-get install -f for the dependencies"
else
	fail "install: $(tail -5 "$IT_WORK/install.log")"
	finish
fi

# the user and its home, where the trust anchor lives
if getent passwd petrel > /dev/null && getent group petrel > /dev/null &&
	[ "$(stat -c %U:%G /var/lib/petrel)" = petrel:petrel ]; then
	ok "the system user petrel and its group exist; /var/lib/petrel is theirs"
else
	fail "user petrel: '$(getent passwd petrel)', /var/lib/petrel: $(stat -c %U:%G /var/lib/petrel 2>&1)"
fi

unit=""
for d in /lib/systemd/system /usr/lib/systemd/system; do
	[ -f "$d/petrel.service" ] && unit=$d/petrel.service && break
done
if [ -n "$unit" ] && dpkg -S "$unit" > /dev/null 2>&1; then
	ok "the unit is the package's: $unit"
else
	fail "no petrel.service of the package in /lib/systemd/system or /usr/lib/systemd/system"
	finish
fi
# every program the unit starts is installed where it names it, with a
# manual page; the config it names is the package's conffile
missing=""
progs=$(sed -n 's/^Exec[A-Za-z]*=[-@+!:]*\([^ ]*\).*/\1/p' "$unit" | sort -u)
for c in $progs; do
	[ "$c" = /bin/kill ] && continue
	[ -x "$c" ] || missing="$missing $c"
	[ -f "/usr/share/man/man8/$(basename "$c").8.gz" ] || missing="$missing $(basename "$c").8"
done
for c in /usr/sbin/petrel-control /usr/sbin/petrel-control-setup; do
	[ -x "$c" ] || missing="$missing $c"
	[ -f "/usr/share/man/man8/$(basename "$c").8.gz" ] || missing="$missing $(basename "$c").8"
done
[ -f /usr/share/man/man5/petrel.conf.5.gz ] || missing="$missing petrel.conf.5"
conf=$(sed -n 's/^ExecStart=.* -c \([^ ]*\).*/\1/p' "$unit")
if [ -z "$missing" ] && [ -n "$progs" ] && [ -n "$conf" ] &&
	dpkg-query -W -f='${Conffiles}\n' petrel | grep -q "^ $conf "; then
	ok "the unit's programs ($(echo $progs | tr '\n' ' ')) are installed with their manual pages; $conf is a conffile"
else
	fail "installed files: missing:$missing; config '$conf' conffiles: $(dpkg-query -W -f='${Conffiles}' petrel)"
fi
if grep -q '^ExecStartPre=-.*/petrel-anchor ' "$unit" &&
	grep -q '^ExecStart=.*/petrel -d -p ' "$unit"; then
	ok "the unit prepares the anchor (ExecStartPre=-petrel-anchor) and runs petrel -d -p"
else
	fail "the unit's commands: $(grep '^Exec' "$unit" | tr '\n' ' ')"
fi
wants=/etc/systemd/system/multi-user.target.wants/petrel.service
if [ "$(readlink "$wants")" = "$unit" ] ||
	[ "$(readlink -f "$wants")" = "$(readlink -f "$unit")" ]; then
	ok "the unit is enabled (dh_installsystemd): $wants"
else
	fail "the unit is not enabled: $(ls -l "$wants" 2>&1)"
fi
if out=$(systemd-analyze verify --man=no "$unit" 2>&1); then
	ok "systemd-analyze verify $unit"
else
	fail "systemd-analyze verify: $out"
fi

# ------------------------------------------------------------ 3. run
# a network namespace of our own, held by a file so that every process
# below can enter it (nsenter); its loopback up
NSF=$(mktemp /tmp/petrel-deb-netns.XXXXXX)
if ! unshare --net="$NSF" true || ! nsenter --net="$NSF" ip link set lo up; then
	fail "no private network namespace (unshare --net)"
	finish
fi
# dig, curl and nsd run in it: wrappers first in the PATH
mkdir -p "$IT_WORK/bin"
for t in dig curl; do
	p=$(command -v $t) || continue
	printf '#!/bin/sh\nexec nsenter --net=%s %s "$@"\n' "$NSF" "$p" > "$IT_WORK/bin/$t"
	chmod 755 "$IT_WORK/bin/$t"
done
printf '#!/bin/sh\nexec nsenter --net=%s %s "$@"\n' "$NSF" "$NSD" > "$IT_WORK/bin/nsd"
chmod 755 "$IT_WORK/bin/nsd"
PATH=$IT_WORK/bin:$PATH
NSD=$IT_WORK/bin/nsd
# proven without sending anything: its only interface is lo and it has
# no route but loopback's
links=$(nsenter --net="$NSF" ip -o link show | awk -F': ' '{print $2}' | tr '\n' ' ')
routes=$(nsenter --net="$NSF" ip -4 route show; nsenter --net="$NSF" ip -6 route show | grep -v '^::1 \|^local ')
if [ "$links" != "lo " ] || [ -n "$routes" ]; then
	fail "the namespace is not loopback only: links '$links', routes '$routes'"
	finish
fi
ok "private network namespace: lo is its only interface, no route leaves it"

# a small unsigned root and zz. on NSD 127.0.240.2
Z=$IT_WORK/zones
mkdir -p "$Z"
cat > "$Z/root.zone" <<'EOF'
$ORIGIN .
$TTL 3600
. IN SOA ns.root. hostmaster.root. 1 3600 900 604800 300
. IN NS ns.root.
ns.root. IN A 127.0.240.2
zz. IN NS ns.zz.
ns.zz. IN A 127.0.240.2
EOF
cat > "$Z/zz.zone" <<'EOF'
$ORIGIN zz.
$TTL 3600
@ IN SOA ns hostmaster 1 3600 900 604800 300
@ IN NS ns
ns IN A 127.0.240.2
www.deb IN A 192.0.2.240
EOF
printf '. 3600000 NS ns.root.\nns.root. 3600000 A 127.0.240.2\n' > "$Z/root.hints"
chmod -R a+rX "$Z"
if ! nsd_start root 127.0.240.2 ".=$Z/root.zone" "zz.=$Z/zz.zone"; then
	fail "NSD on 127.0.240.2 did not start"
	finish
fi
cat > "$DROPIN" <<EOF
# written by tests/integration/deb.sh (make check-deb); removed after it
server:
	root-hints: "$Z/root.hints"
	do-not-query-localhost: no
	domain-insecure: "zz."
	http-metrics-interface: 127.0.240.1@9167
	extended-statistics: yes
EOF

# ExecStartPre, in order, as root (as systemd runs a unit without
# User=); a '-' step may fail. The anchor file does not exist yet.
rm -f /var/lib/petrel/root.key
pre_ok=1
while read -r line; do
	cmd=${line#ExecStartPre=}
	may_fail=0
	while :; do
		case "$cmd" in
		-*) may_fail=1; cmd=${cmd#-} ;;
		[@+!:]*) cmd=${cmd#?} ;;
		*) break ;;
		esac
	done
	nsenter --net="$NSF" $cmd > "$IT_WORK/pre.log" 2>&1
	rc=$?
	echo "ExecStartPre: $cmd: exit $rc" >> "$IT_WORK/pre-all.log"
	if [ $rc != 0 ] && [ $may_fail = 0 ]; then
		pre_ok=0
		fail "ExecStartPre failed: $cmd (exit $rc): $(cat "$IT_WORK/pre.log")"
	fi
done < <(grep '^ExecStartPre=' "$unit")
[ $pre_ok = 1 ] && ok "ExecStartPre: $(grep -c '^ExecStartPre=' "$unit") steps ($(tr '\n' ';' < "$IT_WORK/pre-all.log"))"
# petrel-anchor had no network: the file holds its built-in anchor
anchor=$(sed -n 's/^ExecStartPre=-*.*petrel-anchor .*-a \([^ ]*\).*/\1/p' "$unit")
# key tag, algorithm, digest type, digest of each DS, as in RFC 4034
ds_of() { awk '$4 == "DS" { print tolower($5 " " $6 " " $7 " " $8) }' | sort; }
builtin=$(/usr/sbin/petrel-anchor -l 2>/dev/null | ds_of)
infile=$(grep -v '^;' "${anchor:-/nonexistent}" 2>/dev/null | ds_of)
if [ -n "$anchor" ] && [ -n "$builtin" ] && [ "$builtin" = "$infile" ]; then
	ok "petrel-anchor without network: $anchor holds the built-in anchors ($(echo "$builtin" | wc -l) DS, as petrel-anchor -l)"
else
	fail "anchor file '$anchor': '$infile', built-in: '$builtin'"
fi

# ExecStart, as the unit says, with a notify socket (Type=notify)
python3 - "$IT_WORK/notify.sock" "$IT_WORK/notify.out" > /dev/null 2>&1 9>&- <<'PY' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
s.settimeout(1)
end = time.time() + 60
with open(sys.argv[2], "a") as out:
    while time.time() < end:
        try:
            m = s.recv(4096).decode(errors="replace")
        except socket.timeout:
            continue
        out.write(m.replace("\n", " ") + "\n")
        out.flush()
PY
it_track $!
for i in $(seq 50); do [ -S "$IT_WORK/notify.sock" ] && break; sleep 0.1; done
cmd=$(sed -n 's/^ExecStart=[-@+!:]*//p' "$unit")
NOTIFY_SOCKET=$IT_WORK/notify.sock nsenter --net="$NSF" $cmd > "$IT_WORK/petrel.log" 2>&1 9>&- &
PID=$!
it_track "$PID"
ready=0
for i in $(seq 150); do
	grep -q 'READY=1' "$IT_WORK/notify.out" 2>/dev/null && { ready=1; break; }
	kill -0 "$PID" 2>/dev/null || break
	sleep 0.1
done
if [ $ready = 1 ]; then
	ok "ExecStart ($cmd): READY=1 on the notify socket"
else
	fail "ExecStart ($cmd): no READY=1: $(head -c 600 "$IT_WORK/petrel.log")"
	finish
fi
q() { timeout 10 dig +time=3 +tries=1 @127.0.0.1 "$@" 2>&1; }
out=$(q www.deb.zz. A)
if echo "$out" | grep -q 'status: NOERROR' &&
	echo "$out" | grep -q '^www\.deb\.zz\..*IN[[:space:]]*A[[:space:]]*192\.0\.2\.240'; then
	ok "dig @127.0.0.1 www.deb.zz. A: 192.0.2.240, resolved from the loopback root"
else
	fail "dig www.deb.zz.: $(echo "$out" | grep -v '^;\|^$' | head -5) $(echo "$out" | grep status)"
fi
# the stock config validates with the anchor petrel-anchor wrote: the
# unsigned test root has no DNSKEY, so what it says outside zz. is bogus
out=$(q +dnssec nosuch. A)
if echo "$out" | grep -q 'status: SERVFAIL' && echo "$out" | grep -q 'EDE'; then
	ok "validation with the built-in anchor: an answer of the unsigned root is bogus (SERVFAIL, $(echo "$out" | grep -o 'EDE: [0-9]*[^;]*' | head -1))"
else
	fail "nosuch. from the unsigned root: $(echo "$out" | grep 'status\|EDE')"
fi
uid=$(awk '/^Uid:/ {print $2 $3 $4 $5}' /proc/$PID/status 2>/dev/null)
pu=$(id -u petrel)
if [ "$uid" = "$pu$pu$pu$pu" ]; then
	ok "petrel runs as the user petrel (uid $pu)"
else
	fail "petrel's uids: '$uid', petrel is $pu"
fi
# the anchor file root wrote in the pre-start step is the daemon's to
# replace (RFC 5011), and it could read it
if [ "$(stat -c %U "${anchor:-/nonexistent}" 2>/dev/null)" = petrel ] &&
	! grep -q 'root.key.*denied' "$IT_WORK/petrel.log"; then
	ok "$anchor belongs to petrel ($(stat -c %a "$anchor"))"
else
	fail "$anchor: $(ls -l "$anchor" 2>&1); $(grep root.key "$IT_WORK/petrel.log")"
fi
out=$(/usr/sbin/petrel-control status 2>&1)
if echo "$out" | grep -q 'is running' && echo "$out" | grep -q 'modules: 2 \[ validator iterator \]'; then
	ok "petrel-control status (the stock /run/petrel.ctl): $(echo "$out" | grep -c .) lines, is running, validator iterator"
else
	fail "petrel-control status: $out"
fi
# the metrics endpoint, and the dashboard's names against it
if command -v curl > /dev/null 2>&1; then
	curl -s -m 5 http://127.0.240.1:9167/metrics > "$IT_WORK/metrics.txt" 2>&1
else
	nsenter --net="$NSF" python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen("http://127.0.240.1:9167/metrics", timeout=5).read().decode())' > "$IT_WORK/metrics.txt" 2>&1
fi
if grep -q '^petrel_queries_total{' "$IT_WORK/metrics.txt" &&
	out=$(bash "$SRC/tests/check_dashboard.sh" "$SRC" "$IT_WORK/metrics.txt" 2>&1); then
	ok "/metrics: $(grep -c '^petrel_' "$IT_WORK/metrics.txt") samples; $out"
else
	fail "metrics and dashboard: $(head -c 300 "$IT_WORK/metrics.txt") ${out:-}"
fi
# the upstream RTT: NSD on 127.0.240.2, the one server it asked, is in it
nserv=$(sed -n 's/^petrel_upstream_servers{le="+Inf"} //p' "$IT_WORK/metrics.txt")
mean=$(sed -n 's/^petrel_upstream_rtt_seconds_mean //p' "$IT_WORK/metrics.txt")
if [ "${nserv:-0}" -ge 1 ] && [ -n "$mean" ]; then
	ok "upstream RTT: $nserv server(s) with a smoothed RTT, mean $mean s"
else
	fail "upstream RTT: servers '$nserv', mean '$mean'"
fi
# systemd stops the service with SIGTERM
kill -TERM "$PID"
for i in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
if ! kill -0 "$PID" 2>/dev/null && grep -q 'STOPPING=1' "$IT_WORK/notify.out"; then
	ok "SIGTERM: petrel said STOPPING=1 and stopped"
else
	fail "SIGTERM: still running or no STOPPING=1: $(cat "$IT_WORK/notify.out")"
fi

# ------------------------------------------------ 4. again, then purge
# the package over itself (an upgrade runs the same postinst, with the
# old version): the anchor state the daemon keeps, a local drop-in and
# the user stay as they were
sum0=$(md5sum < /var/lib/petrel/root.key 2>/dev/null)
uid0=$(id -u petrel)
if dpkg -i "$DEB" > "$IT_WORK/reinstall.log" 2>&1 &&
	[ "$(md5sum < /var/lib/petrel/root.key 2>/dev/null)" = "$sum0" ] &&
	[ -f "$DROPIN" ] && [ "$(id -u petrel)" = "$uid0" ] &&
	[ "$(stat -c %U:%G /var/lib/petrel)" = petrel:petrel ]; then
	ok "dpkg -i over the installed package: anchor file, drop-in, user and home kept"
else
	fail "reinstall: $(tail -3 "$IT_WORK/reinstall.log"); anchor $(ls -l /var/lib/petrel 2>&1 | tr '\n' ' ')"
fi
# a purge takes away what the package made; the user stays (Debian
# leaves system users in place)
if [ "$KEEP" != 1 ]; then
	rm -f "$DROPIN"
	dpkg --purge petrel > "$IT_WORK/purge.log" 2>&1 && INSTALLED=0
	left=""
	for f in /etc/petrel /var/lib/petrel "$unit" /usr/sbin/petrel \
		/etc/systemd/system/multi-user.target.wants/petrel.service; do
		if [ -e "$f" ] || [ -L "$f" ]; then left="$left $f"; fi
	done
	if [ "$INSTALLED" = 0 ] && [ -z "$left" ]; then
		ok "dpkg --purge petrel: the config, the anchor state, the unit, its wants link and the programs are gone"
	else
		fail "dpkg --purge: left:$left; $(tail -3 "$IT_WORK/purge.log")"
	fi
fi
finish
