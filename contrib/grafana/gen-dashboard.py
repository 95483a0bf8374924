#!/usr/bin/env python3
# contrib/grafana/gen-dashboard.py - writes petrel-dashboard.json, the
# Grafana dashboard for petrel's Prometheus endpoint (issue 31).
#
# The JSON is generated so that a panel is one call here, not fifty lines
# of JSON: change this file, run it, commit both.
#   python3 contrib/grafana/gen-dashboard.py [out.json]
# (default: petrel-dashboard.json beside this script).
# tests/check_dashboard.sh checks that the committed JSON is what this
# writes, that it loads, and that it names only metrics petrel exports.
import json
import os
import sys

DS = {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
SEL = 'instance=~"$instance"'
R = "$__rate_interval"
panels = []
pid = [0]
def panel(title, desc, targets, x, y, w=12, h=8, kind="timeseries", unit="short", extra=None):
    pid[0] += 1
    p = {
        "id": pid[0], "type": kind, "title": title, "description": desc,
        "datasource": DS,
        "gridPos": {"x": x, "y": y, "w": w, "h": h},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {},
        "targets": [],
    }
    if kind == "timeseries":
        p["fieldConfig"]["defaults"]["custom"] = {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10}
        p["options"] = {"legend": {"displayMode": "list", "placement": "bottom"}, "tooltip": {"mode": "multi"}}
    for i, (expr, legend) in enumerate(targets):
        t = {"refId": chr(ord("A") + i), "datasource": DS, "expr": expr, "legendFormat": legend}
        if kind == "heatmap":
            t["format"] = "heatmap"
        p["targets"].append(t)
    if extra:
        p.update(extra)
    panels.append(p)
def row(title, y):
    pid[0] += 1
    panels.append({"id": pid[0], "type": "row", "title": title, "collapsed": False,
                   "gridPos": {"x": 0, "y": y, "w": 24, "h": 1}, "panels": []})
def rate(m, by=None):
    s = f"rate({m}{{{SEL}}}[{R}])"
    return f"sum by ({by}) ({s})" if by else f"sum({s})"

y = 0
row("Overview", y); y += 1
panel("Uptime", "Seconds since petrel started (petrel_uptime_seconds).",
      [(f"max(petrel_uptime_seconds{{{SEL}}})", "uptime")], 0, y, 6, 4, "stat", "s")
panel("Queries per second", "Client queries received, all workers (petrel_queries_total).",
      [(rate("petrel_queries_total"), "queries/s")], 6, y, 6, 4, "stat", "reqps")
panel("Cache hit rate", "Share of client queries answered from the cache: cache hits over hits plus misses.",
      [(f"{rate('petrel_cache_hits_total')} / clamp_min({rate('petrel_cache_hits_total')} + {rate('petrel_cache_misses_total')}, 1e-9)", "hit rate")],
      12, y, 6, 4, "stat", "percentunit")
panel("Resolutions in flight", "The request list now: resolutions in flight (petrel_requestlist_current).",
      [(f"sum(petrel_requestlist_current{{{SEL}}})", "in flight")], 18, y, 6, 4, "stat", "short")
y += 4
row("Queries", y); y += 1
panel("Queries", "Client queries per second: received, answered from the cache, recursed, over TCP, from local zones.",
      [(rate("petrel_queries_total"), "queries"),
       (rate("petrel_cache_hits_total"), "cache hits"),
       (rate("petrel_cache_misses_total"), "cache misses"),
       (rate("petrel_tcp_queries_total"), "over TCP"),
       (rate("petrel_local_answers_total"), "local zones"),
       (rate("petrel_expired_answers_total"), "served expired"),
       (rate("petrel_prefetches_total"), "prefetches")], 0, y, 12, 8, unit="reqps")
panel("Cache hit rate", "Cache hits over hits plus misses, per instance.",
      [(f"sum by (instance) (rate(petrel_cache_hits_total{{{SEL}}}[{R}])) / clamp_min(sum by (instance) (rate(petrel_cache_hits_total{{{SEL}}}[{R}])) + sum by (instance) (rate(petrel_cache_misses_total{{{SEL}}}[{R}])), 1e-9)", "{{instance}}")],
      12, y, 12, 8, unit="percentunit", extra={"fieldConfig": {"defaults": {"unit": "percentunit", "min": 0, "max": 1, "custom": {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10}}, "overrides": []}})
y += 8
panel("Answers by rcode", "Answers per second by rcode (petrel_answer_rcodes_total: needs extended-statistics: yes) and SERVFAIL answers.",
      [(rate("petrel_answer_rcodes_total", "rcode"), "{{rcode}}"),
       (rate("petrel_servfail_answers_total"), "SERVFAIL (all)")], 0, y, 12, 8, unit="reqps")
panel("Refused, dropped and malformed", "Queries refused by access control, rate limited, malformed, dropped for lack of room or for waiting too long in the socket.",
      [(rate("petrel_denied_queries_total"), "access control"),
       (rate("petrel_ip_ratelimited_total"), "ip-ratelimit"),
       (rate("petrel_malformed_queries_total"), "malformed"),
       (rate("petrel_dropped_queries_total"), "request list full"),
       (rate("petrel_queries_timed_out_total"), "sock-queue-timeout")], 12, y, 12, 8, unit="reqps")
y += 8
row("Latency", y); y += 1
panel("Answer latency after recursion (quantiles)", "Time from a client query to its answer when it needed recursion (petrel_recursion_time_seconds histogram): median, 90th and 99th percentile.",
      [(f"histogram_quantile(0.5, sum by (le) (rate(petrel_recursion_time_seconds_bucket{{{SEL}}}[{R}])))", "p50"),
       (f"histogram_quantile(0.9, sum by (le) (rate(petrel_recursion_time_seconds_bucket{{{SEL}}}[{R}])))", "p90"),
       (f"histogram_quantile(0.99, sum by (le) (rate(petrel_recursion_time_seconds_bucket{{{SEL}}}[{R}])))", "p99"),
       (f"sum(rate(petrel_recursion_time_seconds_sum{{{SEL}}}[{R}])) / clamp_min(sum(rate(petrel_recursion_time_seconds_count{{{SEL}}}[{R}])), 1e-9)", "mean")],
      0, y, 12, 9, unit="s")
panel("Answer latency after recursion (histogram)", "Answers after recursion per second in each latency bucket (petrel_recursion_time_seconds_bucket).",
      [(f"sum by (le) (increase(petrel_recursion_time_seconds_bucket{{{SEL}}}[{R}]))", "{{le}}")],
      12, y, 12, 9, "heatmap", "s",
      extra={"options": {"calculate": False, "yAxis": {"unit": "s"}, "cellGap": 1, "color": {"mode": "scheme", "scheme": "Oranges"}}})
y += 9
row("Upstream", y); y += 1
panel("Upstream queries", "Queries sent to authoritative servers or forwarders, and replies that matched no query (spoofing attempts, late replies).",
      [(rate("petrel_outgoing_queries_total"), "sent"),
       (rate("petrel_unwanted_replies_total"), "unwanted replies"),
       (rate("petrel_global_quota_exceeded_total"), "max-global-quota reached")], 0, y, 12, 8, unit="reqps")
panel("Upstream round-trip time", "Smoothed round-trip time of the upstream servers petrel knows (its infrastructure cache, a picture of now): median and 90th percentile over the servers (petrel_upstream_servers, cumulative by le) and the mean (petrel_upstream_rtt_seconds_mean). petrel-control dump_infra lists each server.",
      [(f"histogram_quantile(0.5, sum by (le) (petrel_upstream_servers{{{SEL}}}))", "median server"),
       (f"histogram_quantile(0.9, sum by (le) (petrel_upstream_servers{{{SEL}}}))", "p90 server"),
       (f"avg(petrel_upstream_rtt_seconds_mean{{{SEL}}})", "mean")],
      12, y, 12, 8, unit="s")
y += 8
panel("Upstream servers by round-trip time", "How many upstream servers have a smoothed RTT of at most each bound (petrel_upstream_servers).",
      [(f"sum by (le) (petrel_upstream_servers{{{SEL}}})", "{{le}}")], 0, y, 24, 7, "bargauge", "short",
      extra={"options": {"orientation": "vertical", "displayMode": "gradient", "showUnfilled": True,
                         "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}}})
y += 7
row("DNSSEC validation", y); y += 1
panel("Validation outcomes", "Answers the validator found secure (fresh or from the cache), answers and RRsets found bogus.",
      [(rate("petrel_secure_answers_total"), "secure answers"),
       (rate("petrel_bogus_answers_total"), "bogus answers"),
       (rate("petrel_bogus_rrsets_total"), "bogus RRsets")], 0, y, 12, 8, unit="reqps")
panel("Secure share", "Secure answers over all answers sent after recursion or from the cache.",
      [(f"{rate('petrel_secure_answers_total')} / clamp_min({rate('petrel_queries_total')}, 1e-9)", "secure share")],
      12, y, 12, 8, unit="percentunit")
y += 8
row("Request list and caches", y); y += 1
panel("Request list", "Resolutions in flight, those with clients waiting, the clients waiting, the peak since the last reset; resolutions jostled out and queries dropped for lack of room.",
      [(f"sum(petrel_requestlist_current{{{SEL}}})", "in flight"),
       (f"sum(petrel_requestlist_current_user{{{SEL}}})", "with clients"),
       (f"sum(petrel_requestlist_current_replies{{{SEL}}})", "clients waiting"),
       (f"max(petrel_requestlist_max{{{SEL}}})", "peak"),
       (rate("petrel_requestlist_overwritten_total"), "jostled out /s"),
       (rate("petrel_dropped_queries_total"), "dropped /s")], 0, y, 12, 8)
panel("Cache memory", "Bytes used by the message and RRset caches (msg-cache-size, rrset-cache-size bound them).",
      [(f"sum by (cache) (petrel_memory_cache_bytes{{{SEL}}})", "{{cache}}")], 12, y, 12, 8, unit="bytes")
y += 8
panel("Cache entries", "Entries in the message, RRset and infrastructure caches.",
      [(f"sum by (cache) (petrel_cache_entries{{{SEL}}})", "{{cache}}")], 0, y, 12, 8)
panel("TCP connections", "Client TCP, TLS and HTTPS connections open.",
      [(f"sum(petrel_tcp_connections{{{SEL}}})", "open")], 12, y, 12, 8)

dash = {
    "__inputs": [{"name": "DS_PROMETHEUS", "label": "Prometheus", "description": "the Prometheus that scrapes petrel's http-metrics-interface",
                  "type": "datasource", "pluginId": "prometheus", "pluginName": "Prometheus"}],
    "__requires": [{"type": "grafana", "id": "grafana", "name": "Grafana", "version": "9.0.0"},
                   {"type": "datasource", "id": "prometheus", "name": "Prometheus", "version": "1.0.0"},
                   {"type": "panel", "id": "timeseries", "name": "Time series", "version": ""},
                   {"type": "panel", "id": "stat", "name": "Stat", "version": ""},
                   {"type": "panel", "id": "heatmap", "name": "Heatmap", "version": ""},
                   {"type": "panel", "id": "bargauge", "name": "Bar gauge", "version": ""}],
    "title": "petrel DNS resolver",
    "uid": "petrel-resolver",
    "description": "petrel's Prometheus metrics (http-metrics-interface): queries, cache hit rate, answer latency, upstream, DNSSEC validation, request list, caches. contrib/grafana/petrel-dashboard.json; doc/monitoring.md says how to import it.",
    "tags": ["dns", "petrel", "resolver"],
    "editable": True,
    "graphTooltip": 1,
    "schemaVersion": 37,
    "version": 1,
    "refresh": "30s",
    "time": {"from": "now-6h", "to": "now"},
    "timezone": "",
    "annotations": {"list": []},
    "links": [],
    "templating": {"list": [
        {"name": "instance", "label": "instance", "type": "query", "datasource": DS,
         "query": {"query": "label_values(petrel_uptime_seconds, instance)", "refId": "instance"},
         "definition": "label_values(petrel_uptime_seconds, instance)",
         "refresh": 2, "multi": True, "includeAll": True, "allValue": ".*",
         "current": {}, "options": [], "sort": 1, "hide": 0},
    ]},
    "panels": panels,
}
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "petrel-dashboard.json")
with open(out, "w") as f:
    json.dump(dash, f, indent=2)
    f.write("\n")
