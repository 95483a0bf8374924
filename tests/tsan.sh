#!/bin/sh
# tests/tsan.sh - build the cache concurrency tests with ThreadSanitizer in
# a separate tree and run them; any TSan report fails the run.
# usage: tsan.sh SRCDIR BUILDDIR
# The separate tree is BUILDDIR/tsan-build (configure --enable-tsan); only
# the library and the test programs are built there.
set -e
srcdir=$(cd "$1" && pwd)
builddir=$(cd "$2" && pwd)
tdir="$builddir/tsan-build"
mkdir -p "$tdir"
if test -f "$srcdir/config.status"; then
	# the source is configured in place (./configure && make check-tsan):
	# a second, out-of-tree configure is refused there, so configure a
	# pristine copy of the source instead
	if test ! -f "$tdir/src/configure"; then
		rm -rf "$tdir/src"
		mkdir -p "$tdir/src"
		if test -d "$srcdir/.git" && command -v git >/dev/null; then
			(cd "$srcdir" && git ls-files -z | xargs -0 tar -cf - \
				configure config.h.in Makefile.in aclocal.m4 \
				build-aux) | tar -C "$tdir/src" -xf -
		else
			echo "check-tsan: $srcdir is configured in place and is" \
				"not a git checkout; run make distclean there, or" \
				"run check-tsan from an out-of-tree build" >&2
			exit 1
		fi
	fi
	srcdir="$tdir/src"
fi
cd "$tdir"
if test ! -f Makefile; then
	"$srcdir/configure" --enable-tsan --without-libevent CC="${CC:-gcc}" \
		>configure.log 2>&1 || { tail -30 configure.log; exit 1; }
fi
progs="tests/check_slabhash"
if test -f "$srcdir/tests/check_msgcache.c"; then
	progs="$progs tests/check_msgcache tests/check_infra"
fi
make -j2 $progs >build.log 2>&1 || { tail -40 build.log; exit 1; }
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
export TSAN_OPTIONS
CK_FORK=no
export CK_FORK
# 2 threads (1 reader, 1 writer), then 8 (4 readers, 4 writers), 10 s
# each; each run also does the concurrent-growth test
for n in 2:10 8:10; do
	t=${n%%:*}; s=${n##*:}
	echo "check-tsan: slabhash, $t threads, $s s"
	PETREL_STRESS_SECONDS=$s PETREL_STRESS_THREADS=$t \
		./tests/check_slabhash concurrent
done
if test -x tests/check_msgcache; then
	echo "check-tsan: message cache, 4 threads, 5 s"
	PETREL_STRESS_SECONDS=5 PETREL_STRESS_THREADS=4 \
		./tests/check_msgcache concurrent
fi
if test -x tests/check_infra; then
	echo "check-tsan: infrastructure cache (concurrent updates)"
	./tests/check_infra
fi
echo "check-tsan: no ThreadSanitizer report"
