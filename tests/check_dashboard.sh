#!/bin/sh
# tests/check_dashboard.sh - the Grafana dashboard in contrib/grafana
# loads as JSON and names only metrics petrel exports (issue 31).
#
# Usage: tests/check_dashboard.sh [srcdir] [metrics-file]
#   srcdir        the source tree (default: the folder above this script)
#   metrics-file  a scrape of a running petrel's /metrics to compare with
#                 (make check-deb passes one); without it, the names come
#                 from daemon/stats.c, the one place petrel's exporter
#                 spells them (each "petrel_..." string literal; a
#                 histogram's _bucket, _sum and _count are literals there)
#
# Checked: the file is what contrib/grafana/gen-dashboard.py writes; it
# parses; it has panels, each target of a panel has a
# PromQL expression, ids are unique; every petrel_* name in an expression
# (and in the templating queries) is exported; the dashboard covers what
# the issue asks (queries, cache hits, the latency histogram, upstream
# queries and RTT, validation outcomes, the request list). Then the checker
# proves it can fail: the same dashboard with one made-up metric name
# must be refused. Exit 0 when all holds, 1 else (one line per problem).
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
metrics=${2:-}
dash=$top/contrib/grafana/petrel-dashboard.json
command -v python3 > /dev/null 2>&1 || { echo "check_dashboard: python3 is needed"; exit 1; }
[ -f "$dash" ] || { echo "check_dashboard: no $dash"; exit 1; }
# the committed JSON is what contrib/grafana/gen-dashboard.py writes
gen=$top/contrib/grafana/gen-dashboard.py
if [ -f "$gen" ]; then
	tmp=$(mktemp /tmp/petrel-dashboard.XXXXXX) || exit 1
	if ! python3 "$gen" "$tmp" || ! cmp -s "$tmp" "$dash"; then
		rm -f "$tmp"
		echo "check_dashboard: $dash is not what $gen writes: run it and commit both"
		exit 1
	fi
	rm -f "$tmp"
fi
exec python3 - "$dash" "$top/daemon/stats.c" "$metrics" <<'PY'
import json, re, sys

dash_path, stats_c, scrape = sys.argv[1], sys.argv[2], sys.argv[3]
NAME = re.compile(r'\bpetrel_[a-z0-9_]+')

def exported():
    if scrape:
        names = set()
        for line in open(scrape):
            if line.startswith('#') or not line.strip():
                continue
            names.add(re.match(r'[a-zA-Z_:][a-zA-Z0-9_:]*', line).group(0))
        return names, "the scrape " + scrape
    src = open(stats_c).read()
    return set(re.findall(r'"(petrel_[a-z0-9_]+)', src)), stats_c

def problems(d, have, where):
    out = []
    if not isinstance(d, dict) or not d.get("title"):
        return ["the dashboard is not an object with a title"]
    panels = d.get("panels") or []
    flat = []
    for p in panels:
        flat.append(p)
        flat.extend(p.get("panels") or [])
    graphs = [p for p in flat if p.get("type") != "row"]
    if not graphs:
        out.append("no panels")
    ids = [p.get("id") for p in flat]
    if len(ids) != len(set(ids)):
        out.append("panel ids repeat: %s" % ids)
    exprs = []
    for p in graphs:
        ts = p.get("targets") or []
        if not ts:
            out.append("panel '%s' has no query" % p.get("title"))
        for t in ts:
            e = t.get("expr", "")
            if not e.strip():
                out.append("panel '%s' target %s has no expr" %
                    (p.get("title"), t.get("refId")))
            exprs.append(e)
    for v in (d.get("templating") or {}).get("list", []):
        q = v.get("query")
        exprs.append(q.get("query", "") if isinstance(q, dict) else str(q or ""))
    used = set()
    for e in exprs:
        used.update(NAME.findall(e))
    for n in sorted(used - have):
        out.append("%s: not exported by petrel (%s)" % (n, where))
    for want in ("petrel_queries_total", "petrel_cache_hits_total",
            "petrel_recursion_time_seconds_bucket",
            "petrel_outgoing_queries_total", "petrel_upstream_servers",
            "petrel_secure_answers_total",
            "petrel_bogus_answers_total", "petrel_requestlist_current"):
        if want not in used:
            out.append("no panel shows %s" % want)
    return out, len(graphs), len(used)

try:
    d = json.load(open(dash_path))
except (OSError, ValueError) as e:
    print("check_dashboard: %s does not load: %s" % (dash_path, e))
    sys.exit(1)
have, where = exported()
if len(have) < 10:
    print("check_dashboard: only %d metric names found in %s" % (len(have), where))
    sys.exit(1)
res = problems(d, have, where)
if isinstance(res, list):
    res = (res, 0, 0)
probs, npanels, nused = res
for p in probs:
    print("check_dashboard: " + p)
# the checker must refuse a made-up name
d2 = json.loads(json.dumps(d))
for p in d2["panels"]:
    if p.get("targets"):
        p["targets"][0]["expr"] += " + petrel_no_such_metric_total"
        break
bad = problems(d2, have, where)
if isinstance(bad, tuple):
    bad = bad[0]
if not any("petrel_no_such_metric_total" in b for b in bad):
    print("check_dashboard: a made-up metric name went through the check")
    probs.append("self-test")
if probs:
    sys.exit(1)
print("check_dashboard: %d panels, %d metric names, all exported (%s)" %
    (npanels, nused, where))
PY
