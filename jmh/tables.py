#!/usr/bin/env python3
"""Turn a JMH JSON result (and the memory-per-key output) into the markdown tables of docs/benchmarks.md.

Usage:
  python3 jmh/tables.py RESULT.json [--memory MEMORY.txt] [--update docs/benchmarks.md]

Without --update the markdown goes to stdout. With --update the text between the markers
<!-- results:begin --> and <!-- results:end --> in that file is replaced.
Every ratio is computed from the one JSON file, i.e. from one JMH run.
"""
import argparse
import json
import re
import sys

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"

SINGLE_ROWS = [
    ("cellrateCallerTime", "cellrate, caller time"),
    ("cellrateNanoClock", "cellrate, `System.nanoTime()` per call"),
    ("cellrateCachedClock", "cellrate, cached clock"),
    ("guava", "Guava `RateLimiter`"),
    ("bucket4jLockFree", "Bucket4j (default, lock-free)"),
    ("bucket4jSynchronized", "Bucket4j `SYNCHRONIZED`"),
    ("resilience4j", "Resilience4j `AtomicRateLimiter`"),
    ("baselineAtomicIncrement", "baseline: `AtomicLong.incrementAndGet()`"),
    ("baselineNanoTimeAtomicIncrement", "baseline: `nanoTime()` + increment"),
    ("baselineAtomicGet", "baseline: `AtomicLong.get()`"),
]

KEYED_ROWS = [
    ("cellrate", "cellrate `KeyedRateLimiter`"),
    ("randomCas", "baseline: random CAS, same footprint"),
    ("bucket4jMap", "Bucket4j + `ConcurrentHashMap`"),
    ("bucket4jCaffeine", "Bucket4j + Caffeine `expireAfterAccess`"),
]


class Results:
    def __init__(self, entries):
        self.entries = entries

    def find(self, cls, method, **params):
        for e in self.entries:
            name = e["benchmark"]
            if not name.endswith("." + cls + "." + method):
                continue
            ep = e.get("params") or {}
            if all(str(ep.get(k)) == str(v) for k, v in params.items()):
                return e
        return None

    def score(self, cls, method, **params):
        e = self.find(cls, method, **params)
        return None if e is None else e["primaryMetric"]["score"]

    def alloc(self, cls, method, **params):
        e = self.find(cls, method, **params)
        if e is None:
            return None
        m = e.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        return None if m is None else m["score"]


def fmt(x, digits=2):
    if x is None:
        return "–"
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    return ("%." + str(digits) + "f") % x


def fmt_alloc(x):
    if x is None:
        return "–"
    if x < 0.01:
        return "%.3f" % x if x >= 0.001 else "≈ 0"
    return "%.1f" % x


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(x):
    return "–" if x is None else "%.2fx" % x


def single_table(r, title, one_cls, two_cls):
    ref1 = r.score(one_cls, "cellrateCallerTime")
    ref2 = r.score(two_cls, "cellrateCallerTime")
    out = ["#### " + title, "",
           "| limiter | 1 thread ops/µs | ns/op | B/op | 2 threads ops/µs (sum) | B/op | cellrate caller time ÷ this, 1 thread | 2 threads |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    rows = 0
    for method, label in SINGLE_ROWS:
        s1 = r.score(one_cls, method)
        s2 = r.score(two_cls, method)
        if s1 is None and s2 is None:
            continue
        rows += 1
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, fmt(s1), fmt(None if not s1 else 1000.0 / s1, 1), fmt_alloc(r.alloc(one_cls, method)),
            fmt(s2), fmt_alloc(r.alloc(two_cls, method)),
            fmt_ratio(ratio(ref1, s1)), fmt_ratio(ratio(ref2, s2))))
    return out + [""] if rows else []


def keyed_table(r, keys, distribution):
    p = {"keys": keys, "distribution": distribution}
    if r.find("KeyedBenchmark", "longKey", **p) is None and r.find("KeyedBenchmark", "stringKey", **p) is None:
        return []
    ref_l = r.score("KeyedBenchmark", "longKey", target="cellrate", **p)
    ref_s = r.score("KeyedBenchmark", "stringKey", target="cellrate", **p)
    out = ["#### Keyed, %s keys, %s, 1 thread" % ("{:,}".format(int(keys)), distribution), "",
           "| target | long keys ops/µs | B/op | string keys ops/µs | B/op | cellrate ÷ this, long | string |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for target, label in KEYED_ROWS:
        sl = r.score("KeyedBenchmark", "longKey", target=target, **p)
        ss = r.score("KeyedBenchmark", "stringKey", target=target, **p)
        if sl is None and ss is None:
            continue
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            label, fmt(sl), fmt_alloc(r.alloc("KeyedBenchmark", "longKey", target=target, **p)),
            fmt(ss), fmt_alloc(r.alloc("KeyedBenchmark", "stringKey", target=target, **p)),
            fmt_ratio(ratio(ref_l, sl)), fmt_ratio(ratio(ref_s, ss))))
    return out + [""]


def latency_table(r):
    rows = []
    for method, label in SINGLE_ROWS:
        e = r.find("AdmitLatencyBenchmark", method)
        if e is None:
            continue
        pc = e["primaryMetric"].get("scorePercentiles", {})
        rows.append("| %s | %s | %s | %s | %s | %s |" % (
            label, fmt(pc.get("50.0"), 0), fmt(pc.get("99.0"), 0), fmt(pc.get("99.9"), 0),
            fmt(pc.get("99.99"), 0), fmt(pc.get("100.0"), 0)))
    if not rows:
        return []
    return ["#### Latency of one admit, 2 threads on one limiter (SampleTime, ns, includes JMH's timer read)", "",
            "| limiter | p50 | p99 | p99.9 | p99.99 | max |", "| --- | ---: | ---: | ---: | ---: | ---: |"] + rows + [""]


def shaper_table(r):
    rows = []
    for e in r.entries:
        if not re.search(r"\.Shaper\w*Benchmark\.", e["benchmark"]):
            continue
        method = e["benchmark"].rsplit(".", 1)[1]
        params = e.get("params") or {}
        label = method + ("" if not params else " (" + ", ".join("%s=%s" % kv for kv in sorted(params.items())) + ")")
        rows.append("| %s | %d | %s | %s |" % (label, e["threads"], fmt(e["primaryMetric"]["score"]),
                                              fmt_alloc((e.get("secondaryMetrics", {}).get("gc.alloc.rate.norm") or {}).get("score"))))
    if not rows:
        return []
    return ["#### Shaper `reserve`", "", "| benchmark | threads | ops/µs | B/op |", "| --- | ---: | ---: | ---: |"] + rows + [""]


def parse_memory(path):
    """Lines like '  bucket4jMap   389,144,944   0   355.6' -> {target: bytes per key}."""
    per_key = {}
    if not path:
        return per_key
    with open(path) as f:
        for line in f:
            k = re.match(r"Memory per key, ([\d,]+) long keys", line)
            if k:
                per_key["_keys"] = k.group(1)
            m = re.match(r"\s+(\w+)\s+([\d,]+)\s+(-?[\d,]+)\s+([\d.]+)", line)
            if m:
                per_key[m.group(1)] = float(m.group(4))
    return per_key


def targets_table(r, memory):
    A1, A2, R1, R2 = "AdmitOneThreadBenchmark", "AdmitTwoThreadsBenchmark", "RejectOneThreadBenchmark", "RejectTwoThreadsBenchmark"
    K = {"keys": "1000000", "distribution": "uniform"}
    rows = []

    def row(name, goal, value, met):
        rows.append("| %s | %s | %s | %s |" % (name, goal, value, "–" if met is None else ("yes" if met else "**no**")))

    def at_least(name, goal, x, bound):
        row(name, goal, fmt_ratio(x), None if x is None else x >= bound)

    c1 = r.score(A1, "cellrateCallerTime")
    at_least("admit, 1 thread, caller time ÷ Guava", "≥ 6x", ratio(c1, r.score(A1, "guava")), 6)
    at_least("admit, 1 thread, caller time ÷ Bucket4j", "≥ 6x", ratio(c1, r.score(A1, "bucket4jLockFree")), 6)
    cost = ratio(r.score(A1, "baselineAtomicIncrement"), c1)
    row("admit, 1 thread, cost ÷ `AtomicLong` increment", "≤ 1.25x", fmt_ratio(cost), None if cost is None else cost <= 1.25)
    n1 = r.score(A1, "cellrateNanoClock")
    at_least("admit, 1 thread, clock per call ÷ Guava", "≥ 1.3x", ratio(n1, r.score(A1, "guava")), 1.3)
    at_least("admit, 1 thread, clock per call ÷ Bucket4j", "≥ 1.3x", ratio(n1, r.score(A1, "bucket4jLockFree")), 1.3)
    c2 = r.score(A2, "cellrateCallerTime")
    at_least("admit, 2 threads, one limiter ÷ Guava", "≥ 8x", ratio(c2, r.score(A2, "guava")), 8)
    at_least("admit, 2 threads, one limiter ÷ Bucket4j", "≥ 10x", ratio(c2, r.score(A2, "bucket4jLockFree")), 10)
    at_least("reject flood, 2 threads ÷ own 1 thread", "≥ 1.8x",
             ratio(r.score(R2, "cellrateCallerTime"), r.score(R1, "cellrateCallerTime")), 1.8)
    kl = r.score("KeyedBenchmark", "longKey", target="cellrate", **K)
    at_least("keyed, 1 M uniform long keys ÷ Bucket4j + CHM", "≥ 20x",
             ratio(kl, r.score("KeyedBenchmark", "longKey", target="bucket4jMap", **K)), 20)
    kcost = ratio(r.score("KeyedBenchmark", "longKey", target="randomCas", **K), kl)
    row("keyed, 1 M uniform long keys, cost ÷ bare random CAS", "≤ 1.5x", fmt_ratio(kcost),
        None if kcost is None else kcost <= 1.5)
    at_least("keyed, 1 M uniform string keys ÷ Bucket4j + CHM", "≥ 10x",
             ratio(r.score("KeyedBenchmark", "stringKey", target="cellrate", **K),
                   r.score("KeyedBenchmark", "stringKey", target="bucket4jMap", **K)), 10)
    allocs = []
    for e in r.entries:
        name = e["benchmark"].rsplit(".", 1)[1]
        is_cellrate = name.startswith("cellrate") or (e.get("params") or {}).get("target") == "cellrate" \
            or re.search(r"\.Shaper\w*Benchmark\.", e["benchmark"]) is not None
        m = e.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        # SampleTime forks allocate JMH's own sample storage (~0.1 B/op even for a bare AtomicLong), so
        # allocation is judged on the throughput-mode benchmarks only.
        if is_cellrate and m is not None and e.get("mode") != "sample":
            allocs.append(m["score"])
    worst = max(allocs) if allocs else None
    row("allocation, every cellrate throughput benchmark (worst)", "< 0.01 B/op",
        "–" if worst is None else "%.4f B/op (%d benchmarks)" % (worst, len(allocs)),
        None if worst is None else worst < 0.01)
    mem_c, mem_b = memory.get("cellrate"), memory.get("bucket4jMap")
    row("memory per key, %s keys" % memory.get("_keys", "1,000,000"), "≤ 32 B", "–" if mem_c is None else "%.1f B" % mem_c,
        None if mem_c is None else mem_c <= 32)
    at_least("memory per key, Bucket4j + CHM ÷ cellrate", "≥ 10x", ratio(mem_b, mem_c), 10)
    lat = r.find("AdmitLatencyBenchmark", "cellrateCallerTime")
    p999 = None if lat is None else lat["primaryMetric"].get("scorePercentiles", {}).get("99.9")
    row("latency p99.9, 2 threads on one limiter", "≤ 1 µs", "–" if p999 is None else "%.0f ns" % p999,
        None if p999 is None else p999 <= 1000)
    return ["#### Targets", "", "| target | goal | measured | met |", "| --- | --- | --- | --- |"] + rows + [""]


def memory_table(memory):
    if not memory:
        return []
    out = ["#### Memory per key (%s long keys; `java -jar jmh/target/demo.jar memory`)" % memory.get("_keys", "?"), "",
           "| target | bytes per key |", "| --- | ---: |"]
    for target, label in KEYED_ROWS:
        if target in memory:
            out.append("| %s | %.1f |" % (label, memory[target]))
    return out + [""]


def render(entries, memory):
    r = Results(entries)
    out = []
    out += targets_table(r, memory)
    out += single_table(r, "Admit path: one limiter, every call admitted", "AdmitOneThreadBenchmark", "AdmitTwoThreadsBenchmark")
    out += single_table(r, "Reject path: one limiter, every call rejected", "RejectOneThreadBenchmark", "RejectTwoThreadsBenchmark")
    out += latency_table(r)
    for keys in ("1000", "1000000", "10000000"):
        for distribution in ("uniform", "zipf"):
            out += keyed_table(r, keys, distribution)
    out += shaper_table(r)
    out += memory_table(memory)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--memory", help="output of java -jar jmh/target/demo.jar memory")
    ap.add_argument("--update", help="markdown file whose results section to replace")
    args = ap.parse_args()
    with open(args.json) as f:
        entries = json.load(f)
    text = render(entries, parse_memory(args.memory))
    if not args.update:
        print(text)
        return
    with open(args.update) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit("markers %s / %s not found in %s" % (BEGIN, END, args.update))
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(args.update, "w") as f:
        f.write(head + BEGIN + "\n" + text + "\n" + END + tail)
    print("updated", args.update)


if __name__ == "__main__":
    main()
