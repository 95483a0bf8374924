#!/bin/sh
# tests/petrel_anchor.sh - smallapp/petrel-anchor: first write, a usable
# file left alone, a broken or revoked file rewritten, -F, -l, errors.
# Run by make check from the build directory.
set -u
bin=${PETREL_ANCHOR:-./smallapp/petrel-anchor}
tmp=$(mktemp -d /tmp/petrel-anchor-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
f=$tmp/root.key

# first start-up: the file is written (exit 1) with both root KSKs as DS
"$bin" -a "$f"; rc=$?
[ $rc -eq 1 ] || fail "first run exit $rc, expected 1"
grep -q '^;;id: \. 1$' "$f" || fail "no ;;id: line"
grep -Eiq '^\.[[:space:]]+172800[[:space:]]+IN[[:space:]]+DS[[:space:]]+20326 8 2 e06d44b80b8f1d39a95c0b0d7c65d08458e880409bbc683457104237c7f8ec8d$' "$f" \
	|| fail "KSK-2017 DS missing"
grep -Eiq '^\.[[:space:]]+172800[[:space:]]+IN[[:space:]]+DS[[:space:]]+38696 8 2 683d2d0acb8c9b712a1948b27f741219298d0a450d612c483af444a4c0fb2b16$' "$f" \
	|| fail "KSK-2024 DS missing"
[ "$(ls "$tmp" | wc -l)" -eq 1 ] || fail "temporary file left behind"

# a usable file (e.g. with the daemon's RFC 5011 state) is left alone
echo "; kept" >> "$f"
cp "$f" "$tmp/copy"
"$bin" -a "$f"; rc=$?
[ $rc -eq 0 ] || fail "second run exit $rc, expected 0"
cmp -s "$f" "$tmp/copy" || fail "a usable file was changed"

# -F writes it anyway
"$bin" -F -a "$f"; rc=$?
[ $rc -eq 1 ] || fail "-F exit $rc, expected 1"
grep -q '; kept' "$f" && fail "-F did not rewrite the file"

# a broken file, or one whose only key is revoked, is rewritten
echo "this is not a zone file" > "$f"
"$bin" -a "$f"; rc=$?
[ $rc -eq 1 ] || fail "broken file: exit $rc, expected 1"
grep -q '20326 8 2' "$f" || fail "broken file not rewritten"
printf ';;id: . 1\n. 172800 IN DNSKEY 385 3 8 AwEAAQ== ;;state=4 [ REVOKED ] ;;count=0 ;;lastchange=1\n' > "$f"
"$bin" -v -a "$f" > "$tmp/out"; rc=$?
[ $rc -eq 1 ] || fail "revoked-only file: exit $rc, expected 1"
grep -q 'no trusted root anchor' "$tmp/out" || fail "-v did not say why"
rm -f "$tmp/out"

# the file is readable by all (the daemon reads it after dropping its
# privileges); written by root into a folder of another user (a unit's
# pre-start step into the daemon's home), it becomes that user's
rm -f "$f"
"$bin" -a "$f"; rc=$?
[ "$(stat -c %a "$f")" = 644 ] || fail "mode $(stat -c %a "$f"), expected 644"
if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1; then
	chmod 711 "$tmp"
	mkdir "$tmp/home"
	chown nobody "$tmp/home"
	"$bin" -a "$tmp/home/root.key"; rc=$?
	[ $rc -eq 1 ] || fail "root into nobody's folder: exit $rc"
	[ "$(stat -c %U "$tmp/home/root.key")" = nobody ] ||
		fail "root into nobody's folder: owned by $(stat -c %U "$tmp/home/root.key")"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		cat "$tmp/home/root.key" > /dev/null 2>&1 ||
		fail "nobody cannot read the file root wrote for it"
	rm -rf "$tmp/home"
fi

# -l lists the built-in anchors
[ "$("$bin" -l | grep -c ' DS ')" -eq 2 ] || fail "-l does not list 2 DS"

# errors: a directory that does not exist, a bad option
"$bin" -a "$tmp/no/such/dir/root.key" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "unwritable path: exit $rc, expected 2"
grep -q 'petrel-anchor:' "$tmp/err" || fail "no error message"
"$bin" -x 2> /dev/null; rc=$?
[ $rc -eq 2 ] || fail "bad option: exit $rc, expected 2"
echo "petrel-anchor: all checks passed"
exit 0
