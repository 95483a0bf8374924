#!/bin/sh
# tests/fuzz/run.sh - run the libFuzzer targets for a bounded time each,
# several at once, on scratch copies of their seed corpora ('make
# fuzz-run' in a build configured with --enable-fuzzing CC=clang).
#
#   run.sh BINDIR CORPUSDIR [NAME...]
#
# BINDIR holds the fuzz_NAME programs, CORPUSDIR the seed folders NAME/;
# with no NAME, every fuzz_* program in BINDIR runs. The environment:
#   FUZZ_SECONDS  seconds per target (default 60)
#   FUZZ_JOBS     targets run at once (default 2)
#   FUZZ_OUT      where each target gets NAME/corpus (the scratch corpus,
#                 with what the run found: merge it into the tree with
#                 fuzz_NAME -merge=1 tests/fuzz/corpus/NAME FUZZ_OUT/NAME/corpus),
#                 NAME/log, and the input of a crash, leak or timeout
#                 (crash-*, leak-*, timeout-*, oom-*; default fuzz-out)
# A target that crashes, leaks, runs an input for more than 10 s or goes
# past 2 GB fails the run; every target still runs, then the crash inputs
# are listed (up to 4 KB also in base64, so that a CI log keeps them) and
# the status is 1. The tree is never written.
set -u

if [ "${1:-}" = "--one" ]; then
	# one target (run in parallel through xargs)
	bin=$2 name=$3 dir=$4 secs=$5
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$dir/" \
		"$dir/corpus" > "$dir/log" 2>&1
	rc=$?
	echo $rc > "$dir/rc"
	echo "fuzz_$name: exit $rc, $(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1) runs, corpus $(ls "$dir/corpus" | wc -l)"
	exit 0
fi

if [ $# -lt 2 ]; then
	echo "usage: $0 BINDIR CORPUSDIR [NAME...]" >&2
	exit 2
fi
bindir=$1 corpus=$2
shift 2
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-2}
out=${FUZZ_OUT:-fuzz-out}
names="$*"
if [ -z "$names" ]; then
	for f in "$bindir"/fuzz_*; do
		[ -x "$f" ] || continue
		case "$f" in *.o|*.c) continue ;; esac
		names="$names ${f##*/fuzz_}"
	done
fi
if [ -z "$names" ]; then
	echo "$0: no fuzz_* programs in $bindir (make fuzz-build)" >&2
	exit 1
fi

mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
list=
for n in $names; do
	if [ ! -x "$bindir/fuzz_$n" ] || [ ! -d "$corpus/$n" ]; then
		echo "$0: no $bindir/fuzz_$n or no corpus $corpus/$n" >&2
		exit 1
	fi
	rm -rf "$out/$n"
	mkdir -p "$out/$n/corpus" || exit 1
	cp "$corpus/$n"/* "$out/$n/corpus/" || exit 1
	list="$list $(cd "$bindir" && pwd)/fuzz_$n:$n"
done

echo "fuzzing:$names; ${secs}s each, $jobs at a time, results in $out"
for e in $list; do echo "$e"; done |
	xargs -P "$jobs" -I '{}' sh -c 'e={}; exec sh "$0" --one "${e%:*}" "${e##*:}" "$1/${e##*:}" "$2"' \
		"$0" "$out" "$secs"

fail=0
for n in $names; do
	rc=$(cat "$out/$n/rc" 2>/dev/null || echo none)
	if [ "$rc" != 0 ]; then
		fail=1
		echo "FAIL fuzz_$n (exit $rc): see $out/$n/log"
		for a in "$out/$n"/crash-* "$out/$n"/leak-* "$out/$n"/timeout-* \
			"$out/$n"/oom-*; do
			[ -f "$a" ] || continue
			echo "  input: $a"
			# in the log too, for a CI machine that is wiped after
			if [ "$(wc -c < "$a")" -le 4096 ]; then
				echo "  input (base64; base64 -d > crash):"
				base64 "$a" | sed 's/^/    /'
			fi
		done
		grep -m 3 -E 'ERROR: |SUMMARY: ' "$out/$n/log" | sed 's/^/  /'
	fi
done
[ $fail = 0 ] && echo "fuzzing: no crash"
exit $fail
