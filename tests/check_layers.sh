#!/bin/sh
# tests/check_layers.sh - check the #include "..." lines of every .c and .h
# against the layer order of doc/DESIGN (DESIGN.md, "Layout"):
#
#   1 util/ and dns/
#   2 util/storage/, util/netevent/, xdp/ (the AF_XDP sockets and frames)
#   3 services/cache/
#   4 services/ (all of it but services/cache/): the mesh and the module
#     contract, the outbound network, the auth zones and the zone
#     transfer client, the RPZ rules
#   5 the modules: iterator/ validator/ respip/ dns64/ edns-subnet/ cachedb/
#   6 front/: the front end (the per-query answer path, the module stack
#     that names the modules, access control, local zones, views and
#     policy, wait limits, cookies, DDR)
#   7 daemon/
#   8 smallapp/
#
# A folder is a layer: the order names folders, never single files.
# A file may include headers of its own layer and of the layers below; an
# include from a higher layer is printed as "file:line: includes header
# (layer A includes layer B)" and fails the check. tests/ and bench/ are
# exempt (they drive every layer), and so is config.h. A file or header in
# a folder the check does not know is an error too, so that a new folder
# gets its place in the order.
#
# The module seam: no file of front/ or daemon/ includes a module's header
# (layer 5) but front/modstack.c, the module list, which names the
# modules; the rest asks the stack for a capability or a control request
# (front/modstack.h). Such an include is printed as "file:line: includes
# header (a module's header outside front/modstack.c)" and fails the
# check. Usage: tests/check_layers.sh [srcdir]
# (default: the folder above this script). Exit 0 when clean, 1 otherwise.

top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2

# layer of a path (a source file or an included header), or "" when the
# path is not in a layered folder
layer_of() {
	case "$1" in
	config.h) echo 0 ;;
	util/storage/*|util/netevent/*|xdp/*) echo 2 ;;
	util/*|dns/*) echo 1 ;;
	services/cache/*) echo 3 ;;
	services/*) echo 4 ;;
	iterator/*|validator/*|respip/*|dns64/*|edns-subnet/*|cachedb/*)
		echo 5 ;;
	front/*) echo 6 ;;
	daemon/*) echo 7 ;;
	smallapp/*) echo 8 ;;
	*) echo "" ;;
	esac
}

files=$(find . -name '*.[ch]' ! -path './tests/*' ! -path './bench/*' \
	! -path './.git/*' ! -path './build-aux/*' ! -name 'config.h' \
	! -path './autom4te.cache/*' | sed 's|^\./||' | LC_ALL=C sort)
bad=0
for f in $files; do
	lf=$(layer_of "$f")
	if [ -z "$lf" ]; then
		echo "$f: not in a known layer (add its folder to" \
			"tests/check_layers.sh and DESIGN.md)"
		bad=1
		continue
	fi
	# "line:header" for every #include "header"
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
	sed 's|^\([0-9]*\):[^"]*"\([^"]*\)".*|\1:\2|' > "${TMPDIR:-/tmp}/layers.$$"
	while IFS=: read -r ln h; do
		lh=$(layer_of "$h")
		if [ -z "$lh" ]; then
			echo "$f:$ln: includes $h, which is not in a" \
				"known layer"
			bad=1
		elif [ "$lh" -gt "$lf" ]; then
			echo "$f:$ln: includes $h (layer $lf includes" \
				"layer $lh: an upward include)"
			bad=1
		elif [ "$lh" -eq 5 ] && { [ "$lf" -eq 6 ] || [ "$lf" -eq 7 ]; } &&
			[ "$f" != front/modstack.c ]; then
			echo "$f:$ln: includes $h (a module's header" \
				"outside front/modstack.c)"
			bad=1
		fi
	done < "${TMPDIR:-/tmp}/layers.$$"
	rm -f "${TMPDIR:-/tmp}/layers.$$"
done
if [ $bad -ne 0 ]; then
	echo "check_layers: includes against the layer order and the" \
		"module seam (see tests/check_layers.sh): FAILED"
	exit 1
fi
echo "check_layers: $(echo "$files" | wc -l) files, no upward include," \
	"no module header outside front/modstack.c"
exit 0
