#!/bin/sh
# tests/check_layers_selftest.sh - tests/check_layers.sh must fail on an
# upward include and on a file outside the known layers, and pass a tree
# whose includes run down. Runs it on small trees in a temporary folder.
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layers-self.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0

# a clean tree: daemon includes util and the module list, the iterator
# includes the mesh, the module list (front/modstack.c) the iterator
mkdir -p "$tmp/ok/util" "$tmp/ok/daemon" "$tmp/ok/iterator" \
	"$tmp/ok/services" "$tmp/ok/front" "$tmp/ok/smallapp"
printf '#include "config.h"\n#include "util/log.h"\n' > "$tmp/ok/util/log.c"
: > "$tmp/ok/util/log.h"
: > "$tmp/ok/services/mesh.h"
printf '#include "services/mesh.h"\n#include "util/log.h"\n' \
	> "$tmp/ok/iterator/iterator.c"
printf '#include "front/modstack.h"\n#include "util/log.h"\n' \
	> "$tmp/ok/daemon/worker.c"
: > "$tmp/ok/iterator/iterator.h"
: > "$tmp/ok/front/modstack.h"
printf '#include "front/modstack.h"\n#include "iterator/iterator.h"\n' \
	> "$tmp/ok/front/modstack.c"
printf '#include "iterator/iterator.h"\n' > "$tmp/ok/smallapp/tool.c"
if ! out=$(sh "$here/check_layers.sh" "$tmp/ok"); then
	echo "FAIL: a clean tree was refused: $out"
	fail=1
fi

# a planted upward include: the mesh includes the iterator
cp -r "$tmp/ok" "$tmp/up"
printf '#include "config.h"\n#include "util/log.h"\n#include "iterator/iterator.h"\n' \
	> "$tmp/up/services/mesh.c"
out=$(sh "$here/check_layers.sh" "$tmp/up")
if [ $? -ne 1 ]; then
	echo "FAIL: an upward include passed"
	fail=1
fi
case "$out" in
*"services/mesh.c:3: includes iterator/iterator.h (layer 4 includes layer 5: an upward include)"*) ;;
*)	echo "FAIL: the upward include was not named: $out"; fail=1 ;;
esac

# a folder is a layer: any file in services/ (but services/cache/) is
# layer 4, any file in front/ layer 6, whatever its name
cp -r "$tmp/ok" "$tmp/folders"
mkdir -p "$tmp/folders/front" "$tmp/folders/services/cache"
: > "$tmp/folders/services/cache/msg.h"
printf '#include "services/cache/msg.h"\n' > "$tmp/folders/services/newjob.c"
: > "$tmp/folders/services/newjob.h"
printf '#include "services/newjob.h"\n#include "util/log.h"\n' \
	> "$tmp/folders/front/answer.c"
: > "$tmp/folders/front/answer.h"
printf '#include "front/answer.h"\n' > "$tmp/folders/daemon/main.c"
if ! out=$(sh "$here/check_layers.sh" "$tmp/folders"); then
	echo "FAIL: a tree of services/ and front/ files was refused: $out"
	fail=1
fi
printf '#include "front/answer.h"\n' > "$tmp/folders/services/newjob.c"
out=$(sh "$here/check_layers.sh" "$tmp/folders")
case "$out" in
*"services/newjob.c:1: includes front/answer.h (layer 4 includes layer 6: an upward include)"*) ;;
*)	echo "FAIL: services/ including front/ was not named: $out"; fail=1 ;;
esac
printf '#include "services/newjob.h"\n' > "$tmp/folders/services/cache/msg.c"
out=$(sh "$here/check_layers.sh" "$tmp/folders")
case "$out" in
*"services/cache/msg.c:1: includes services/newjob.h (layer 3 includes layer 4: an upward include)"*) ;;
*)	echo "FAIL: services/cache/ including services/ was not named: $out"; fail=1 ;;
esac

# the module seam: front/ and daemon/ include no module's header, but
# front/modstack.c (the module list)
cp -r "$tmp/ok" "$tmp/seam"
printf '#include "front/modstack.h"\n#include "iterator/iterator.h"\n' \
	> "$tmp/seam/daemon/remote.c"
printf '#include "iterator/iterator.h"\n' > "$tmp/seam/front/resolver.c"
out=$(sh "$here/check_layers.sh" "$tmp/seam")
if [ $? -ne 1 ]; then
	echo "FAIL: a module's header included in front/ and daemon/ passed"
	fail=1
fi
case "$out" in
*"daemon/remote.c:2: includes iterator/iterator.h (a module's header outside front/modstack.c)"*) ;;
*)	echo "FAIL: daemon/ including a module was not named: $out"; fail=1 ;;
esac
case "$out" in
*"front/resolver.c:1: includes iterator/iterator.h (a module's header outside front/modstack.c)"*) ;;
*)	echo "FAIL: front/ including a module was not named: $out"; fail=1 ;;
esac
case "$out" in
*"front/modstack.c:"*)
	echo "FAIL: front/modstack.c was refused: $out"; fail=1 ;;
esac

# a folder the check does not know
cp -r "$tmp/ok" "$tmp/unknown"
mkdir "$tmp/unknown/newdir"
: > "$tmp/unknown/newdir/x.c"
if sh "$here/check_layers.sh" "$tmp/unknown" > /dev/null; then
	echo "FAIL: a file outside the known layers passed"
	fail=1
fi
[ $fail -eq 0 ] && echo "check_layers_selftest: ok"
exit $fail
