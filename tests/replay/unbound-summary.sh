#!/bin/sh
# tests/replay/unbound-summary.sh - group the failures of make
# check-unbound by their first reason, with counts, most frequent first:
# what to fix next. Reads the output of the suite from a file or stdin:
#   make check-unbound | tests/replay/unbound-summary.sh [-n 30]
#   tests/replay/unbound-summary.sh suite-output.txt
# A reason is made general: step numbers, line numbers, numbers and the
# text in parentheses are taken out, and "options petrel does not
# implement: a, b" counts once per option (the first).
n=30
if [ "$1" = "-n" ]; then n=$2; shift 2; fi
in=$(mktemp) || exit 1
trap 'rm -f "$in"' EXIT
cat "$@" > "$in"
grep '^FAIL ' "$in" |
sed -e 's/^FAIL [^:]*: //' \
    -e 's/^step [0-9]*: //' \
    -e 's/^[^ ]*\.rpl:[0-9]*: /parse: /' \
    -e 's/config: [^ ]*\.rpl:[0-9]*: /config: /' \
    -e 's/options petrel does not implement: \([^,(]*[^,( ]\).*/option not implemented: \1/' \
    -e 's|/tmp/petrel-replay-[^/]*/[^: ]*\(:[0-9]*\)*: ||' \
    -e 's/^[0-9]*: /parse: /' \
    -e "s/cannot parse record '.*': /cannot parse a record: /" \
    -e "s/auth-zone '[^']*': //" -e "s/rpz '[^']*': //" \
    -e 's/^\([a-z ]*\): [^ ]*\.rpl:[0-9]*: /\1: /' \
    -e 's/ ([^)]*)//g' \
    -e 's/entry line [0-9]*/entry/' \
    -e 's/line [0-9]*/line N/g' \
    -e 's/\(lacks\|has extra\) \([^ 	]*\)[ 	]*[0-9]*[ 	]*IN[ 	]*\([A-Z0-9]*\).*/\1 \3/' \
    -e 's/record [0-9]* wanted: .*/a record/' \
    -e 's/\b[0-9][0-9]*\b/N/g' |
sort | uniq -c | sort -rn | head -n "$n"
printf '%s failures\n' "$(grep -c '^FAIL ' "$in")"
