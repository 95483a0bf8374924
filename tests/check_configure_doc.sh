#!/bin/sh
# tests/check_configure_doc.sh - the README's configure table names every
# option of configure.ac (issue 31): for each AC_ARG_WITH(NAME) the table
# must show --with-NAME or --without-NAME, for each AC_ARG_ENABLE(NAME)
# --enable-NAME or --disable-NAME, in a table row ("| `--..." ).
# Usage: tests/check_configure_doc.sh [srcdir] (default: the folder above
# this script). Prints each option missing; exit 0 when none is, 1 else.
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
ac=$top/configure.ac
readme=$top/README.md
[ -f "$ac" ] && [ -f "$readme" ] || { echo "no $ac or $readme"; exit 1; }
rows=$(grep '^| `--' "$readme")
missing=0
n=0
for kind in WITH ENABLE; do
	for name in $(sed -n "s/^AC_ARG_$kind(\[\([a-zA-Z0-9_-]*\)\].*/\1/p" "$ac"); do
		n=$((n + 1))
		if [ $kind = WITH ]; then a=--with-$name; b=--without-$name
		else a=--enable-$name; b=--disable-$name; fi
		if ! printf '%s\n' "$rows" | grep -q -F -e "\`$a\`" \
			-e "\`$a=" -e "\`$a[" -e "\`$b\`"; then
			echo "README.md: the configure table has no row for $a / $b"
			missing=$((missing + 1))
		fi
	done
done
if [ "$n" = 0 ]; then
	echo "no AC_ARG_WITH or AC_ARG_ENABLE found in $ac"
	exit 1
fi
echo "configure options: $n, missing from the README's table: $missing"
[ "$missing" = 0 ]
