#!/bin/sh
# contrib/setup-debian.sh - install what petrel needs to build, test and
# benchmark on Debian 12 (bookworm). Runs apt-get as root (through sudo
# when not root). Safe to run again: apt-get skips what is installed.
set -e
SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
# the nsd and unbound packages would start their services, which take
# port 53 that petrel and its integration tests want: keep the package
# scripts from starting services during this install (policy-rc.d)
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\n# petrel setup-debian: no services started during install\nexit 101\n' |
		$SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake libtool pkg-config \
	libevent-dev liburing-dev libnghttp2-dev libssl-dev libldns-dev check \
	nsd unbound bind9-dnsutils knot-dnsutils ldnsutils dnsperf \
	clang libclang-rt-14-dev gnuplot-nox procps iproute2 git ca-certificates \
	>/dev/null
# dnstap (libfstrm, protobuf-c, protoc-c) and its test's reader and
# collector (make check-dnstap: dnstap-read, fstrm_capture; socat puts
# TLS in front of fstrm_capture for dnstap-tls)
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends libfstrm-dev libprotobuf-c-dev \
	protobuf-c-compiler fstrm-bin bind9-utils socat >/dev/null
# the DNS over TLS test (make check-tls): certificates and a capture on lo
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends openssl tshark curl >/dev/null
# the cachedb module's Redis backend and its test (make check-cachedb)
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends libhiredis-dev redis-server >/dev/null
# the PROXY v2 client of make check-proxy
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends python3 >/dev/null
# the Debian package (debian/; make check-deb builds it with
# dpkg-buildpackage, checks its unit with systemd-analyze)
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends debhelper dh-autoreconf dpkg-dev fakeroot \
	systemd >/dev/null
# the AF_XDP fast path (configure --with-libxdp: libxdp, libbpf, clang
# -target bpf) and its test and benchmark (make check-xdp, bench/xdp:
# ethtool turns a veth's checksum offload off, kxdpgun is in knot-dnsutils)
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends libxdp-dev libbpf-dev clang llvm ethtool \
	>/dev/null
# the user petrel changes to after binding its ports (username:'s
# default, configure --with-username), as the package creates it
if ! getent passwd petrel >/dev/null; then
	$SUDO adduser --system --group --no-create-home --home /nonexistent \
		--quiet petrel
fi
echo "setup-debian: build and test dependencies installed"
