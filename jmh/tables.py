#!/usr/bin/env python3
"""Turn a JMH JSON result (and the memory-per-key output) into the markdown tables of docs/benchmarks.md.

Usage:
  python3 jmh/tables.py RUN1.json [RUN2.json ...] [--memory MEMORY.txt] [--update docs/benchmarks.md]

Without --update the markdown goes to stdout. With --update the text between the markers
<!-- results:begin --> and <!-- results:end --> in that file is replaced.
Every ratio is computed inside one JSON file, i.e. inside one run (cellrate, its peers and its baselines
back to back; jmh/headline.sh merges a run's two JMH invocations into one file); with several files each ratio is
computed per run and reported as the median with the range (min-max) over the runs. Scores in the detail tables
are the median over the runs. A throughput benchmark run with several forks scores the median of its forks'
means (JMH's own score is their mean: one fork in a fast or slow mode moves a mean of three by a third of the
gap, a median not at all); with one fork that is JMH's score. If a run's JSON X-run<i>.json has a X-cpu<i>.txt
beside it (KeyedCpuTime's output, written by jmh/headline.sh), the targets table also gets the keyed ÷ random-CAS
and batch ÷ single ratios paired in one JVM, in CPU time. If X-host.txt is there (the machine, written by
jmh/headline.sh), the tables open with it.
"""
import argparse
import json
import os
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
    ("cellrateShaper", "cellrate `KeyedShaper.reserve` (delay)"),
    ("randomCas", "baseline: random CAS, same footprint"),
    ("hashOnly", "baseline: cellrate's key hash only (no table)"),
    ("bucket4jMap", "Bucket4j + `ConcurrentHashMap`"),
    ("bucket4jCaffeine", "Bucket4j + Caffeine `expireAfterAccess`"),
]


class Results:
    def __init__(self, entries, cpu=None):
        self.entries = entries
        self.cpu = cpu or {}

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
        return None if e is None else entry_score(e)

    def alloc(self, cls, method, **params):
        e = self.find(cls, method, **params)
        if e is None:
            return None
        m = e.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        return None if m is None else m["score"]


def fork_means(e):
    """The mean of each fork's iterations (throughput and average-time modes), or [] if the JSON has no rawData."""
    raw = e["primaryMetric"].get("rawData")
    if not raw or e.get("mode") == "sample":
        return []
    return [sum(fork) / len(fork) for fork in raw if fork]


def entry_score(e):
    """JMH's score with one fork; with several, the median of the forks' means."""
    means = fork_means(e)
    return median(means) if len(means) > 1 else e["primaryMetric"]["score"]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2.0


class Runs:
    """Several runs: score()/alloc() give the median over the runs that have the benchmark; each(f) applies a
    function of one run (a Results) to every run and keeps the values that are not None."""

    def __init__(self, runs, cpus=None):
        cpus = cpus or [None] * len(runs)
        self.runs = [Results(entries, cpu) for entries, cpu in zip(runs, cpus)]
        self.entries = [e for r in self.runs for e in r.entries]

    def find(self, cls, method, **params):
        for r in self.runs:
            e = r.find(cls, method, **params)
            if e is not None:
                return e
        return None

    def finds(self, cls, method, **params):
        return [e for e in (r.find(cls, method, **params) for r in self.runs) if e is not None]

    def score(self, cls, method, **params):
        return median([x for x in (r.score(cls, method, **params) for r in self.runs) if x is not None])

    def alloc(self, cls, method, **params):
        return median([x for x in (r.alloc(cls, method, **params) for r in self.runs) if x is not None])

    def each(self, f):
        return [x for x in (f(r) for r in self.runs) if x is not None]


class Stat:
    """Median and range of one ratio over the runs."""

    def __init__(self, values):
        self.values = values
        self.median = median(values)
        self.low = min(values) if values else None
        self.high = max(values) if values else None


def fmt_stat(st, unit="x"):
    if st.median is None:
        return "–"
    if len(st.values) == 1:
        return "%.2f%s" % (st.median, unit)
    return "%.2f%s (%.2f–%.2f, %d runs)" % (st.median, unit, st.low, st.high, len(st.values))


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
    if x < 0.001:
        return "≈ 0"
    if x < 1:
        return "%.3f" % x
    return "%.1f" % x


def composed(a, b):
    """Throughput of doing a's operation and then b's, from their throughputs (their costs per operation added)."""
    return None if not a or not b else 1.0 / (1.0 / a + 1.0 / b)


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
    methods = [m for m in ("longKey", "stringKey", "bytesKey") if r.find("KeyedBenchmark", m, **p) is not None]
    if not methods:
        return []
    names = {"longKey": "long keys", "stringKey": "string keys", "bytesKey": "byte keys"}
    refs = {m: r.score("KeyedBenchmark", m, target="cellrate", **p) for m in methods}
    out = ["#### Keyed, %s keys, %s, 1 thread (median ops/µs over the runs)" % ("{:,}".format(int(keys)), distribution), "",
           "| target | " + " | ".join("%s ops/µs | B/op" % names[m] for m in methods) + " | "
           + " | ".join("cellrate ÷ this, %s" % names[m] for m in methods) + " |",
           "| --- |" + " ---: | ---: |" * len(methods) + " ---: |" * len(methods)]
    for target, label in KEYED_ROWS:
        scores = [r.score("KeyedBenchmark", m, target=target, **p) for m in methods]
        if all(x is None for x in scores):
            continue
        cells = []
        for m, x in zip(methods, scores):
            cells += [fmt(x), fmt_alloc(r.alloc("KeyedBenchmark", m, target=target, **p))]
        cells += [fmt_ratio(ratio(refs[m], x)) for m, x in zip(methods, scores)]
        out.append("| %s | %s |" % (label, " | ".join(cells)))
    return out + [""] + fork_spread(r, "KeyedBenchmark", [(m, t) for m in methods for t in ("cellrate", "randomCas")], p)


def fork_spread(r, cls, pairs, p):
    """One line: the range of the forks' means over every run, for the rows that were run with several forks."""
    parts = []
    for method, target in pairs:
        params = dict(p) if target is None else dict(p, target=target)
        means = [x for e in r.finds(cls, method, **params) for x in fork_means(e)]
        if len(means) > len(r.finds(cls, method, **params)):
            parts.append("%s%s %s–%s (%d forks)" % (method, "" if target is None else " " + target,
                                                   fmt(min(means)), fmt(max(means)), len(means)))
    return ["Forks' means, lowest–highest over all runs: " + "; ".join(parts) + ".", ""] if parts else []


def latency_table(r):
    rows = []
    for method, label in SINGLE_ROWS:
        es = r.finds("AdmitLatencyBenchmark", method)
        if not es:
            continue
        pc = {q: median([e["primaryMetric"].get("scorePercentiles", {}).get(q) for e in es
                         if e["primaryMetric"].get("scorePercentiles", {}).get(q) is not None])
              for q in ("50.0", "99.0", "99.9", "99.99", "100.0")}
        rows.append("| %s | %s | %s | %s | %s | %s |" % (
            label, fmt(pc.get("50.0"), 0), fmt(pc.get("99.0"), 0), fmt(pc.get("99.9"), 0),
            fmt(pc.get("99.99"), 0), fmt(pc.get("100.0"), 0)))
    if not rows:
        return []
    return ["#### Latency of one admit, 2 threads on one limiter (SampleTime, ns, includes JMH's timer read; median over the runs)", "",
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


def family_table(r):
    ref = r.score("AdmitOneThreadBenchmark", "cellrateCallerTime")
    rows = []
    for e in r.entries:
        if ".FamilyBenchmark." not in e["benchmark"]:
            continue
        score = e["primaryMetric"]["score"]
        rows.append("| `%s` | %s | %s | %s |" % (e["benchmark"].rsplit(".", 1)[1], fmt(score),
                                               fmt_alloc((e.get("secondaryMetrics", {}).get("gc.alloc.rate.norm") or {}).get("score")),
                                               fmt_ratio(ratio(score, ref))))
    if not rows:
        return []
    return ["#### The family, admit path, 1 thread, caller time", "",
            "| benchmark | ops/µs | B/op | ÷ `RateLimiter` caller time |", "| --- | ---: | ---: | ---: |"] + rows + [""]


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
                per_key["_keys_plain"] = k.group(1).replace(",", "")
            m = re.match(r"\s+(\w+)\s+([\d,]+)\s+(-?[\d,]+)\s+([\d.]+)", line)
            if m:
                per_key[m.group(1)] = float(m.group(4))
    return per_key


def targets_table(runs, memory):
    A1, A2, R1, R2 = "AdmitOneThreadBenchmark", "AdmitTwoThreadsBenchmark", "RejectOneThreadBenchmark", "RejectTwoThreadsBenchmark"
    K = {"keys": memory.get("_keys_plain", "1000000"), "distribution": "uniform"}
    KB = "KeyedBenchmark"
    rows = []

    def row(name, goal, value, met, floor="–"):
        rows.append("| %s | %s | %s | %s | %s |" % (name, goal, value, "–" if met is None else ("yes" if met else "**no**"),
                                                  floor))

    def ratio_row(name, goal, f, at_least, bound, *floors):
        """floors: (label, f) pairs, the same ratio with a bare baseline in cellrate's place (same run, same peer), i.e. what the
        cheapest code of that shape reaches on this host; a goal beyond it is beyond the host, not the design."""
        st = Stat(runs.each(f))
        met = None if st.median is None or bound is None else (st.median >= bound if at_least else st.median <= bound)
        cells = [c for c in (floor_cell(fl) for fl in floors) if c is not None]
        row(name, goal, fmt_stat(st), met, "; ".join(cells) if cells else "–")

    def floor_cell(floor):
        label, g = floor
        st = Stat(runs.each(g))
        return None if st.median is None else "%s: %s" % (label, fmt_stat(st))

    def sc(r, cls, method, **params):
        return r.score(cls, method, **params)

    ratio_row("admit, 1 thread, caller time ÷ Guava", "≥ 6x",
              lambda r: ratio(sc(r, A1, "cellrateCallerTime"), sc(r, A1, "guava")), True, 6,
              ("read-then-CAS ÷ Guava", lambda r: ratio(sc(r, A1, "baselineAtomicGetCompareAndExchange"), sc(r, A1, "guava"))))
    ratio_row("admit, 1 thread, caller time ÷ Bucket4j", "≥ 6x",
              lambda r: ratio(sc(r, A1, "cellrateCallerTime"), sc(r, A1, "bucket4jLockFree")), True, 6,
              ("read-then-CAS ÷ Bucket4j", lambda r: ratio(sc(r, A1, "baselineAtomicGetCompareAndExchange"), sc(r, A1, "bucket4jLockFree"))))
    ratio_row("admit, 1 thread, cost ÷ `AtomicLong` increment", "≤ 1.5x",
              lambda r: ratio(sc(r, A1, "baselineAtomicIncrement"), sc(r, A1, "cellrateCallerTime")), False, 1.5,
              ("read-then-CAS's own cost ÷ `AtomicLong`", lambda r: ratio(sc(r, A1, "baselineAtomicIncrement"), sc(r, A1, "baselineAtomicGetCompareAndExchange"))))
    ratio_row("admit, 1 thread, cost ÷ bare read-then-CAS (`AtomicLong.get` + `compareAndExchange`, the floor of "
              "any cell that must read its word before its CAS)", "– (info)",
              lambda r: ratio(sc(r, A1, "baselineAtomicGetCompareAndExchange"), sc(r, A1, "cellrateCallerTime")), False, None)
    ratio_row("admit, 1 thread, clock per call ÷ Guava", "≥ 1.3x",
              lambda r: ratio(sc(r, A1, "cellrateNanoClock"), sc(r, A1, "guava")), True, 1.3)
    ratio_row("admit, 1 thread, clock per call ÷ Bucket4j", "≥ 1.3x",
              lambda r: ratio(sc(r, A1, "cellrateNanoClock"), sc(r, A1, "bucket4jLockFree")), True, 1.3)
    ratio_row("admit, 2 threads, one limiter ÷ Guava", "≥ 8x",
              lambda r: ratio(sc(r, A2, "cellrateCallerTime"), sc(r, A2, "guava")), True, 8,
              ("read-then-CAS, 2 threads ÷ Guava", lambda r: ratio(sc(r, A2, "baselineAtomicGetCompareAndExchange"), sc(r, A2, "guava"))),
              ("`AtomicLong` increment, 2 threads ÷ Guava", lambda r: ratio(sc(r, A2, "baselineAtomicIncrement"), sc(r, A2, "guava"))))
    ratio_row("admit, 2 threads, one limiter ÷ Bucket4j", "≥ 10x",
              lambda r: ratio(sc(r, A2, "cellrateCallerTime"), sc(r, A2, "bucket4jLockFree")), True, 10,
              ("read-then-CAS, 2 threads ÷ Bucket4j", lambda r: ratio(sc(r, A2, "baselineAtomicGetCompareAndExchange"), sc(r, A2, "bucket4jLockFree"))),
              ("`AtomicLong` increment, 2 threads ÷ Bucket4j", lambda r: ratio(sc(r, A2, "baselineAtomicIncrement"), sc(r, A2, "bucket4jLockFree"))))
    ratio_row("reject flood, 2 threads ÷ own 1 thread", "≥ 1.8x",
              lambda r: ratio(sc(r, R2, "cellrateCallerTime"), sc(r, R1, "cellrateCallerTime")), True, 1.8,
              ("a plain read of one shared word, 2 threads ÷ 1 thread", lambda r: ratio(sc(r, R2, "baselineAtomicGet"), sc(r, R1, "baselineAtomicGet"))))
    n = "{:,}".format(int(K["keys"]))
    n = n.replace(",000,000", " M") if n.endswith(",000,000") else n
    ratio_row("keyed, %s uniform long keys ÷ Bucket4j + CHM" % n, "≥ 20x",
              lambda r: ratio(sc(r, KB, "longKey", target="cellrate", **K), sc(r, KB, "longKey", target="bucket4jMap", **K)),
              True, 20,
              ("random CAS ÷ Bucket4j + CHM", lambda r: ratio(sc(r, KB, "longKey", target="randomCas", **K), sc(r, KB, "longKey", target="bucket4jMap", **K))))
    ratio_row("keyed, %s uniform long keys, cost ÷ bare random CAS" % n, "≤ 1.3x",
              lambda r: ratio(sc(r, KB, "longKey", target="randomCas", **K), sc(r, KB, "longKey", target="cellrate", **K)),
              False, 1.3)
    if any(r.cpu for r in runs.runs):
        ratio_row("keyed, 1 M uniform long keys, cost ÷ bare random CAS, **paired in one JVM** (CPU time of the thread, "
                  "`KeyedCpuTime`, one JVM a run)", "≤ 1.3x", lambda r: r.cpu.get("keyed"), False, 1.3)
        ratio_row("keyed, 1 M uniform long keys, batch of 32 ÷ single calls, paired in one JVM (CPU time, `KeyedCpuTime`)",
                  "≥ 2.5x", lambda r: r.cpu.get("batch"), True, 2.5)
    ratio_row("keyed, %s uniform long keys, batch of %s ÷ single calls" % (n, batch_size(runs) or "?"), "≥ 2.5x",
              lambda r: ratio(sc(r, "KeyedBatchBenchmark", "batch", **K), sc(r, "KeyedBatchBenchmark", "single", **K)),
              True, 2.5)
    ratio_row("keyed, %s uniform byte keys, batch of %s ÷ single calls" % (n, batch_size(runs) or "?"), "– (info)",
              lambda r: ratio(sc(r, "KeyedBatchBenchmark", "batchBytes", **K), sc(r, "KeyedBatchBenchmark", "singleBytes", **K)),
              True, None)
    for label, method in (("string", "stringKey"), ("byte", "bytesKey")):
        def peer(target, m=method):
            return lambda r: ratio(sc(r, KB, m, target=target, **K), sc(r, KB, m, target="bucket4jMap", **K))

        ratio_row("keyed, %s uniform %s keys ÷ Bucket4j + CHM" % (n, label), "≥ 5x", peer("cellrate"), True, 5,
                  ("random CAS ÷ Bucket4j + CHM", peer("randomCas")),
                  ("cellrate's key hash alone, no table ÷ Bucket4j + CHM", peer("hashOnly")),
                  ("that hash, then a bare random CAS (the long-key row's), their costs added ÷ Bucket4j + CHM",
                   lambda r, m=method: ratio(composed(sc(r, KB, m, target="hashOnly", **K),
                                                      sc(r, KB, "longKey", target="randomCas", **K)),
                                             sc(r, KB, m, target="bucket4jMap", **K))))
    allocs = []
    for e in runs.entries:
        name = e["benchmark"].rsplit(".", 1)[1]
        is_cellrate = name.startswith("cellrate") or (e.get("params") or {}).get("target", "").startswith("cellrate") \
            or ".FamilyBenchmark." in e["benchmark"] or ".KeyedBatchBenchmark." in e["benchmark"] \
            or re.search(r"\.Shaper\w*Benchmark\.", e["benchmark"]) is not None
        m = e.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        # SampleTime forks allocate JMH's own sample storage (~0.1 B/op even for a bare AtomicLong), so
        # allocation is judged on the throughput-mode benchmarks only.
        if is_cellrate and m is not None and e.get("mode") != "sample":
            allocs.append(m["score"])
    worst = max(allocs) if allocs else None
    row("allocation, every cellrate throughput benchmark (worst of every run)", "< 0.01 B/op",
        "–" if worst is None else "%.4f B/op (%d results)" % (worst, len(allocs)),
        None if worst is None else worst < 0.01)
    mem_c, mem_b = memory.get("cellrate"), memory.get("bucket4jMap")
    row("memory per key, %s keys" % memory.get("_keys", "1,000,000"), "≤ 24 B", "–" if mem_c is None else "%.1f B" % mem_c,
        None if mem_c is None else mem_c <= 24)
    mem_ratio = ratio(mem_b, mem_c)
    row("memory per key, Bucket4j + CHM ÷ cellrate", "≥ 13x", fmt_ratio(mem_ratio),
        None if mem_ratio is None else mem_ratio >= 13)
    p999 = []
    for e in runs.finds("AdmitLatencyBenchmark", "cellrateCallerTime"):
        v = e["primaryMetric"].get("scorePercentiles", {}).get("99.9")
        if v is not None:
            p999.append(v / 1000.0)
    st = Stat(p999)
    row("latency p99.9, 2 threads on one limiter", "≤ 1 µs", fmt_stat(st, " µs"),
        None if st.median is None else st.median <= 1.0)
    return ["#### Targets (median over the runs, range in brackets)", "", "| target | goal | measured | met | "
            "the same ratio for a bare baseline in cellrate's place (same runs) |",
            "| --- | --- | --- | --- | --- |"] + rows + [""]


def batch_size(runs):
    """KeyedBatchBenchmark.BATCH (a constant of the class, not a JMH parameter)."""
    return None if runs.find("KeyedBatchBenchmark", "batch") is None else 32


def batch_table(r, keys, distribution):
    p = {"keys": keys, "distribution": distribution}
    single = r.finds("KeyedBatchBenchmark", "single", **p)
    batch = r.finds("KeyedBatchBenchmark", "batch", **p)
    if not single and not batch:
        return []
    st = Stat(r.each(lambda x: ratio(x.score("KeyedBatchBenchmark", "batch", **p), x.score("KeyedBatchBenchmark", "single", **p))))
    return ["#### Keyed batch, %s long keys, %s, 1 thread (ops/µs = keys decided per µs)" % ("{:,}".format(int(keys)), distribution), "",
            "| call | keys/µs | B/key |", "| --- | ---: | ---: |",
            "| one `tryAcquire(key, permits, now)` per key | %s | %s |" % (
                fmt(r.score("KeyedBatchBenchmark", "single", **p)), fmt_alloc(r.alloc("KeyedBatchBenchmark", "single", **p))),
            "| `tryAcquire(keys, count, permits, now, codes)`, %s keys a call | %s | %s |" % (
                batch_size(r) or "?", fmt(r.score("KeyedBatchBenchmark", "batch", **p)), fmt_alloc(r.alloc("KeyedBatchBenchmark", "batch", **p))),
            "", "Batch ÷ single: %s." % fmt_stat(st), ""] + fork_spread(
                r, "KeyedBatchBenchmark", [(m, None) for m in ("single", "batch", "singleBytes", "batchBytes")], p)


def memory_table(memory):
    if not memory:
        return []
    out = ["#### Memory per key (%s long keys; `MemoryPerKey` of tools/lab)" % memory.get("_keys", "?"), "",
           "| target | bytes per key |", "| --- | ---: |"]
    for target, label in KEYED_ROWS:
        if target in memory:
            out.append("| %s | %.1f |" % (label, memory[target]))
    return out + [""]


def parse_cpu(path):
    """KeyedCpuTime's summary line: 'keyed cellrate / randomCas 1.53x; batch32 speed-up over single calls 1.53x; ...'."""
    cpu = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"keyed cellrate / randomCas ([\d.]+)x; batch32 speed-up over single calls ([\d.]+)x; "
                         r"admit cellrate / AtomicLong ([\d.]+)x", line)
            if m:
                cpu = {"keyed": float(m.group(1)), "batch": float(m.group(2)), "admit": float(m.group(3))}
    return cpu


def cpu_path(json_path):
    """jmh/headline.sh writes KeyedCpuTime's output of run i beside its JSON: X-run<i>.json -> X-cpu<i>.txt."""
    m = re.match(r"(.*)-run(\d+)\.json$", json_path)
    return None if m is None else "%s-cpu%s.txt" % (m.group(1), m.group(2))


def parse_host(path):
    """jmh/headline.sh's X-host.txt: 'Key: value' lines (lscpu's summary, memory, clock source, kernel, JVM, times)."""
    host = {}
    with open(path) as f:
        for line in f:
            key, sep, value = line.partition(":")
            if sep:
                host[key.strip()] = " ".join(value.split())
    return host


def host_path(json_path):
    """X-run<i>.json -> X-host.txt (one per headline)."""
    m = re.match(r"(.*)-run(\d+)\.json$", json_path)
    return None if m is None else "%s-host.txt" % m.group(1)


def host_lines(host):
    if not host:
        return []
    cpu = "%s, %s vCPUs (%s guest, %s thread(s) per core)" % (
        host.get("Model name", "?"), host.get("CPU(s)", "?"), host.get("Hypervisor vendor", "no"),
        host.get("Thread(s) per core", "?"))
    caches = "L1d %s, L2 %s, L3 %s" % (host.get("L1d cache", "?"), host.get("L2 cache", "?"), host.get("L3 cache", "?"))
    return ["#### Machine of this run (`lscpu` and the JVM, recorded by `jmh/headline.sh`)", "",
            "| what | value |", "| --- | --- |",
            "| CPU | %s |" % cpu,
            "| caches | %s |" % caches,
            "| memory | %s |" % host.get("Memory", "?"),
            "| clock source | %s |" % host.get("Clock source", "?"),
            "| OS / JVM | %s, %s |" % (host.get("Kernel", "?"), host.get("Java", "?")),
            "| run | %s to %s |" % (host.get("Started", "?"), host.get("Ended", "?")), ""]


def render(runs, memory, cpus=None, host=None):
    r = Runs(runs, cpus)
    out = []
    out += host_lines(host)
    out += targets_table(r, memory)
    out += single_table(r, "Admit path: one limiter, every call admitted", "AdmitOneThreadBenchmark", "AdmitTwoThreadsBenchmark")
    out += single_table(r, "Reject path: one limiter, every call rejected", "RejectOneThreadBenchmark", "RejectTwoThreadsBenchmark")
    out += latency_table(r)
    for keys in ("1000", "1000000", "10000000"):
        for distribution in ("uniform", "zipf"):
            out += keyed_table(r, keys, distribution)
            out += batch_table(r, keys, distribution)
    out += shaper_table(r)
    out += family_table(r)
    out += memory_table(memory)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="one JMH JSON result per run")
    ap.add_argument("--memory", help="output of the lab tool MemoryPerKey (tools/lab)")
    ap.add_argument("--update", help="markdown file whose results section to replace")
    args = ap.parse_args()
    runs = []
    cpus = []
    for path in args.json:
        with open(path) as f:
            runs.append(json.load(f))
        cpu = cpu_path(path)
        cpus.append(parse_cpu(cpu) if cpu is not None and os.path.exists(cpu) else None)
    host = host_path(args.json[0])
    text = render(runs, parse_memory(args.memory), cpus,
                  parse_host(host) if host is not None and os.path.exists(host) else None)
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
