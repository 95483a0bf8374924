#!/bin/sh
# contrib/setup-debian.sh - install what petrel needs to build, test and
# benchmark on Debian 12 (bookworm). Runs apt-get as root (through sudo
# when not root). Safe to run again: apt-get skips what is installed.
set -e
SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake libtool pkg-config \
	libevent-dev libssl-dev libldns-dev check \
	nsd unbound bind9-dnsutils knot-dnsutils ldnsutils dnsperf \
	clang libclang-rt-14-dev gnuplot-nox procps iproute2 git ca-certificates \
	>/dev/null
echo "setup-debian: build and test dependencies installed"
