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
beside it (KeyedCpuTime's output, written by jmh/headline.sh), the goals table also gets the keyed ÷ random-CAS
and batch ÷ floor-batch ratios paired in one JVM, in CPU time, for each key count it ran.
The goals are ratios to the floor: cellrate against the cheapest correct code of the same shape in the same run
(a read-then-CAS for the cell, a random CAS on an array of the table's footprint for a key, the same CASes with
every slot touched first for a batch); the ratios to the peers follow as information. If X-host.txt is there (the machine, written by
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
    ("baselineAtomicGet", "baseline: `AtomicLong.get()` − caller time"),
]

KEYED_ROWS = [
    ("cellrate", "cellrate `KeyedRateLimiter`"),
    ("cellrateShaper", "cellrate `KeyedShaper.reserve` (delay)"),
    ("randomCas", "floor: the key hashed, then a random CAS, same footprint"),
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


def million(keys):
    n = "{:,}".format(int(keys))
    return n.replace(",000,000", " M") if n.endswith(",000,000") else n


def targets_table(runs, memory):
    """Two tables: the goals, each cellrate ÷ its floor (the cheapest correct code of the same shape, measured in
    the same run), and the peer ratios, which are information (they move with the host)."""
    A1, A2, R1, R2 = "AdmitOneThreadBenchmark", "AdmitTwoThreadsBenchmark", "RejectOneThreadBenchmark", "RejectTwoThreadsBenchmark"
    KB, BB = "KeyedBenchmark", "KeyedBatchBenchmark"
    RTC = "baselineAtomicGetCompareAndExchange"
    key_counts = [k for k in ("1000000", "10000000")
                  if runs.find(KB, "longKey", keys=k, distribution="uniform") is not None
                  or runs.find(BB, "batch", keys=k, distribution="uniform") is not None
                  or any(r.cpu.get(k) for r in runs.runs)]
    if not key_counts:
        key_counts = [memory.get("_keys_plain", "1000000")]
    goals = []
    peers = []

    def sc(r, cls, method, **params):
        return r.score(cls, method, **params)

    def ns_cell(f, unit=" ns/op"):
        st = Stat(runs.each(f))
        return None if st.median is None else fmt_stat(st, unit)

    def goal(name, floor, goal_text, f, at_least, bound, floor_number=None):
        st = Stat(runs.each(f))
        met = None if st.median is None or bound is None else (st.median >= bound if at_least else st.median <= bound)
        goals.append("| %s | %s | %s | %s | %s | %s |" % (
            name, floor, goal_text, fmt_stat(st), "–" if met is None else ("yes" if met else "**no**"),
            (floor_number or "–")))

    def info(name, f, *floors):
        st = Stat(runs.each(f))
        if st.median is None:
            return
        cells = []
        for label, g in floors:
            fs = Stat(runs.each(g))
            if fs.median is not None:
                cells.append("%s: %s" % (label, fmt_stat(fs)))
        peers.append("| %s | %s | %s |" % (name, fmt_stat(st), "; ".join(cells) if cells else "–"))

    def per_ns(cls, method, **params):
        return lambda r: None if not sc(r, cls, method, **params) else 1000.0 / sc(r, cls, method, **params)

    def cpu(k, name):
        return lambda r: (r.cpu.get(k) or {}).get(name)

    # --- goals: cellrate against its floor
    goal("admit, 1 thread: cost ÷ the floor's", "a bare read-then-CAS (`AtomicLong.get`, then `compareAndExchange`), same caller time",
         "≤ 1.15x", lambda r: ratio(sc(r, A1, RTC), sc(r, A1, "cellrateCallerTime")), False, 1.15,
         ns_cell(per_ns(A1, RTC)))
    goal("admit, 2 threads on one limiter: cost ÷ the floor's", "the same read-then-CAS, 2 threads on one word",
         "≤ 1.15x", lambda r: ratio(sc(r, A2, RTC), sc(r, A2, "cellrateCallerTime")), False, 1.15,
         ns_cell(lambda r: None if not sc(r, A2, RTC) else 1000.0 / sc(r, A2, RTC), " ns/op (2 threads together)"))
    if any(r.cpu.get(key_counts[0], {}).get("admit_cas") for r in runs.runs):
        goal("admit, 1 thread, paired in one JVM (CPU time, `KeyedCpuTime`): cost ÷ the floor's", "the same read-then-CAS",
             "– (info)", cpu(key_counts[0], "admit_cas"), False, None,
             ns_cell(lambda r: ((r.cpu.get(key_counts[0]) or {}).get("ns") or {}).get("admit get + CAS"), " cpu-ns/op"))
    goal("reject flood: 2 threads ÷ 1 thread, ÷ the floor's", "a plain read of one shared word (`AtomicLong.get`) against the same caller time, 2 threads ÷ 1",
         "≥ 0.9x", lambda r: ratio(ratio(sc(r, R2, "cellrateCallerTime"), sc(r, R1, "cellrateCallerTime")),
                                   ratio(sc(r, R2, "baselineAtomicGet"), sc(r, R1, "baselineAtomicGet"))), True, 0.9,
         ns_cell(lambda r: ratio(sc(r, R2, "baselineAtomicGet"), sc(r, R1, "baselineAtomicGet")), "x"))
    for k in key_counts:
        K = {"keys": k, "distribution": "uniform"}
        n = million(k)
        goal("keyed, %s uniform long keys: cost ÷ the floor's" % n,
             "a random CAS on an array of the table's footprint", "≤ 1.3x",
             lambda r, K=K: ratio(sc(r, KB, "longKey", target="randomCas", **K), sc(r, KB, "longKey", target="cellrate", **K)),
             False, 1.3, ns_cell(per_ns(KB, "longKey", target="randomCas", **K)))
        if any(r.cpu.get(k) for r in runs.runs):
            goal("keyed, %s uniform long keys, **paired in one JVM** (CPU time, `KeyedCpuTime`): cost ÷ the floor's" % n,
                 "the same random CAS", "≤ 1.3x", cpu(k, "keyed"), False, 1.3,
                 ns_cell(lambda r, k=k: ((r.cpu.get(k) or {}).get("ns") or {}).get("keyed randomCas"), " cpu-ns/op"))
        goal("keyed, %s uniform long keys, batch of 32: speed-up over 32 calls ÷ the floor's" % n,
             "32 random CASes with every slot touched first, ÷ the same 32 one by one", "≥ 0.8x",
             lambda r, K=K: ratio(ratio(sc(r, BB, "batch", **K), sc(r, BB, "single", **K)),
                                  ratio(sc(r, BB, "floorBatch", **K), sc(r, BB, "floorSingle", **K))), True, 0.8,
             ns_cell(lambda r, K=K: ratio(sc(r, BB, "floorBatch", **K), sc(r, BB, "floorSingle", **K)), "x"))
        if any((r.cpu.get(k) or {}).get("floor_batch") for r in runs.runs):
            goal("keyed, %s uniform long keys, batch of 32, paired in one JVM (CPU time): speed-up ÷ the floor's" % n,
                 "the same", "≥ 0.8x", lambda r, k=k: ratio(cpu(k, "batch")(r), cpu(k, "floor_batch")(r)), True, 0.8,
                 ns_cell(cpu(k, "floor_batch"), "x"))
    K = {"keys": key_counts[0], "distribution": "uniform"}
    n = million(key_counts[0])
    goal("keyed, %s uniform string keys: throughput ÷ the floor's" % n,
         "cellrate's key hash of the string, then a random CAS (`randomCas`)", "≥ 0.95x",
         lambda r: ratio(sc(r, KB, "stringKey", target="cellrate", **K), sc(r, KB, "stringKey", target="randomCas", **K)),
         True, 0.95, ns_cell(lambda r: sc(r, KB, "stringKey", target="randomCas", **K), " ops/µs"))
    goal("keyed, %s uniform byte keys: throughput ÷ the floor's" % n, "the same for the 16 bytes", "– (info)",
         lambda r: ratio(sc(r, KB, "bytesKey", target="cellrate", **K), sc(r, KB, "bytesKey", target="randomCas", **K)),
         True, None, ns_cell(lambda r: sc(r, KB, "bytesKey", target="randomCas", **K), " ops/µs"))
    allocs = []
    for e in runs.entries:
        name = e["benchmark"].rsplit(".", 1)[1]
        is_cellrate = name.startswith("cellrate") or (e.get("params") or {}).get("target", "").startswith("cellrate") \
            or ".FamilyBenchmark." in e["benchmark"] \
            or (".KeyedBatchBenchmark." in e["benchmark"] and not name.startswith("floor")) \
            or re.search(r"\.Shaper\w*Benchmark\.", e["benchmark"]) is not None
        m = e.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        # SampleTime forks allocate JMH's own sample storage (~0.1 B/op even for a bare AtomicLong), so
        # allocation is judged on the throughput-mode benchmarks only.
        if is_cellrate and m is not None and e.get("mode") != "sample":
            allocs.append(m["score"])
    worst = max(allocs) if allocs else None
    goals.append("| allocation, every cellrate throughput benchmark (worst of every run) | – | < 0.01 B/op | %s | %s | – |" % (
        "–" if worst is None else "%.4f B/op (%d results)" % (worst, len(allocs)),
        "–" if worst is None else ("yes" if worst < 0.01 else "**no**")))
    mem_c, mem_b = memory.get("cellrate"), memory.get("bucket4jMap")
    mem_floor = memory.get("randomCas")
    goals.append("| memory per key, %s keys | – | ≤ 24 B | %s | %s | %s |" % (
        memory.get("_keys", "1,000,000"), "–" if mem_c is None else "%.1f B" % mem_c,
        "–" if mem_c is None else ("yes" if mem_c <= 24 else "**no**"),
        "–" if mem_floor is None else "random-CAS array: %.1f B" % mem_floor))
    p999 = []
    for e in runs.finds("AdmitLatencyBenchmark", "cellrateCallerTime"):
        v = e["primaryMetric"].get("scorePercentiles", {}).get("99.9")
        if v is not None:
            p999.append(v / 1000.0)
    st = Stat(p999)
    goals.append("| latency p99.9, 2 threads on one limiter | – | ≤ 1 µs | %s | %s | – |" % (
        fmt_stat(st, " µs"), "–" if st.median is None else ("yes" if st.median <= 1.0 else "**no**")))

    # --- peer ratios: information
    info("admit, 1 thread, caller time ÷ Guava", lambda r: ratio(sc(r, A1, "cellrateCallerTime"), sc(r, A1, "guava")),
         ("read-then-CAS ÷ Guava", lambda r: ratio(sc(r, A1, RTC), sc(r, A1, "guava"))))
    info("admit, 1 thread, caller time ÷ Bucket4j", lambda r: ratio(sc(r, A1, "cellrateCallerTime"), sc(r, A1, "bucket4jLockFree")),
         ("read-then-CAS ÷ Bucket4j", lambda r: ratio(sc(r, A1, RTC), sc(r, A1, "bucket4jLockFree"))))
    info("admit, 1 thread, cost ÷ `AtomicLong` increment", lambda r: ratio(sc(r, A1, "baselineAtomicIncrement"), sc(r, A1, "cellrateCallerTime")),
         ("read-then-CAS's own cost ÷ `AtomicLong`", lambda r: ratio(sc(r, A1, "baselineAtomicIncrement"), sc(r, A1, RTC))))
    info("admit, 1 thread, clock per call ÷ Guava", lambda r: ratio(sc(r, A1, "cellrateNanoClock"), sc(r, A1, "guava")))
    info("admit, 1 thread, clock per call ÷ Bucket4j", lambda r: ratio(sc(r, A1, "cellrateNanoClock"), sc(r, A1, "bucket4jLockFree")))
    info("admit, 2 threads, one limiter ÷ Guava", lambda r: ratio(sc(r, A2, "cellrateCallerTime"), sc(r, A2, "guava")),
         ("read-then-CAS ÷ Guava", lambda r: ratio(sc(r, A2, RTC), sc(r, A2, "guava"))))
    info("admit, 2 threads, one limiter ÷ Bucket4j", lambda r: ratio(sc(r, A2, "cellrateCallerTime"), sc(r, A2, "bucket4jLockFree")),
         ("read-then-CAS ÷ Bucket4j", lambda r: ratio(sc(r, A2, RTC), sc(r, A2, "bucket4jLockFree"))))
    info("reject flood, 2 threads ÷ own 1 thread", lambda r: ratio(sc(r, R2, "cellrateCallerTime"), sc(r, R1, "cellrateCallerTime")),
         ("a plain shared read", lambda r: ratio(sc(r, R2, "baselineAtomicGet"), sc(r, R1, "baselineAtomicGet"))))
    for k in key_counts:
        K = {"keys": k, "distribution": "uniform"}
        info("keyed, %s uniform long keys ÷ Bucket4j + CHM" % million(k),
             lambda r, K=K: ratio(sc(r, KB, "longKey", target="cellrate", **K), sc(r, KB, "longKey", target="bucket4jMap", **K)),
             ("random CAS ÷ Bucket4j + CHM", lambda r, K=K: ratio(sc(r, KB, "longKey", target="randomCas", **K),
                                                                  sc(r, KB, "longKey", target="bucket4jMap", **K))))
        info("keyed, %s uniform long keys, batch of 32 ÷ 32 single calls" % million(k),
             lambda r, K=K: ratio(sc(r, BB, "batch", **K), sc(r, BB, "single", **K)),
             ("the floor's", lambda r, K=K: ratio(sc(r, BB, "floorBatch", **K), sc(r, BB, "floorSingle", **K))))
    K = {"keys": key_counts[0], "distribution": "uniform"}
    info("keyed, %s uniform byte keys, batch of 32 ÷ 32 single calls" % n,
         lambda r: ratio(sc(r, BB, "batchBytes", **K), sc(r, BB, "singleBytes", **K)))
    for label, method in (("string", "stringKey"), ("byte", "bytesKey")):
        def peer(target, m=method):
            return lambda r: ratio(sc(r, KB, m, target=target, **K), sc(r, KB, m, target="bucket4jMap", **K))

        info("keyed, %s uniform %s keys ÷ Bucket4j + CHM" % (n, label), peer("cellrate"),
             ("cellrate's hash, then a random CAS ÷ Bucket4j + CHM", peer("randomCas")),
             ("the hash alone ÷ Bucket4j + CHM", peer("hashOnly")))
    mem_ratio = ratio(mem_b, mem_c)
    if mem_ratio is not None:
        peers.append("| memory per key, Bucket4j + CHM ÷ cellrate | %s | – |" % fmt_ratio(mem_ratio))
    return ["#### Goals: cellrate against its floor (median over the runs, range in brackets)", "",
            "| what | the floor (same runs) | goal | measured | met | the floor's own number |",
            "| --- | --- | --- | --- | --- | --- |"] + goals + [""] + \
        ["#### Against the peers (information: these ratios move with the host)", "",
         "| ratio | measured | the same ratio with the floor in cellrate's place (same runs) |",
         "| --- | --- | --- |"] + peers + [""]


def batch_size(runs):
    """KeyedBatchBenchmark.BATCH (a constant of the class, not a JMH parameter)."""
    return None if runs.find("KeyedBatchBenchmark", "batch") is None else 32


def batch_table(r, keys, distribution):
    p = {"keys": keys, "distribution": distribution}
    B = "KeyedBatchBenchmark"
    if not any(r.finds(B, m, **p) for m in ("single", "batch", "floorSingle", "floorBatch")):
        return []
    rows = [("one `tryAcquire(key, permits, now)` per key", "single"),
            ("`tryAcquire(keys, count, permits, now, codes)`, %s keys a call" % (batch_size(r) or "?"), "batch"),
            ("floor: one random CAS per key, same footprint", "floorSingle"),
            ("floor: the same CASes, every slot touched first (memory-level parallelism)", "floorBatch")]
    out = ["#### Keyed batch, %s long keys, %s, 1 thread (ops/µs = keys decided per µs)" % ("{:,}".format(int(keys)), distribution), "",
           "| call | keys/µs | B/key |", "| --- | ---: | ---: |"]
    for label, method in rows:
        if r.finds(B, method, **p):
            out.append("| %s | %s | %s |" % (label, fmt(r.score(B, method, **p)), fmt_alloc(r.alloc(B, method, **p))))

    def speedup(a, b):
        return Stat(r.each(lambda x: ratio(x.score(B, a, **p), x.score(B, b, **p))))
    return out + ["", "Batch ÷ single: %s; the floor's: %s." % (fmt_stat(speedup("batch", "single")),
                                                                fmt_stat(speedup("floorBatch", "floorSingle"))), ""] + fork_spread(
        r, B, [(m, None) for m in ("single", "batch", "floorSingle", "floorBatch", "singleBytes", "batchBytes")], p)


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
    """KeyedCpuTime's output: per key count, a header '1,000,000 keys', lines 'NAME  12.3 cpu-ns/op (...)' and the
    summary 'keys 1000000: keyed cellrate / randomCas 1.53x; batch32 speed-up over single calls 1.53x, the floor's
    2.10x; admit cellrate / AtomicLong 1.40x, / get + CAS 1.20x'. Returns {key count: {ratio name: value, "ns": {...}}}
    (an older output without the key count is 1,000,000 keys)."""
    cpu = {}
    ns = {}
    with open(path) as f:
        for line in f:
            h = re.match(r"([\d,]+) keys$", line.strip())
            if h:
                ns = {}
                cpu[h.group(1).replace(",", "")] = {"ns": ns}
                continue
            t = re.match(r"(\S.*?)\s+([\d.]+) cpu-ns/op", line)
            if t:
                ns[t.group(1)] = float(t.group(2))
                continue
            m = re.match(r"(?:keys (\d+): )?keyed cellrate / randomCas ([\d.]+)x; batch32 speed-up over single calls ([\d.]+)x"
                         r"(?:, the floor's ([\d.]+)x)?; admit cellrate / AtomicLong ([\d.]+)x(?:, / get \+ CAS ([\d.]+)x)?", line)
            if m:
                entry = cpu.setdefault(m.group(1) or "1000000", {"ns": ns})
                entry.update({"keyed": float(m.group(2)), "batch": float(m.group(3)),
                              "floor_batch": None if m.group(4) is None else float(m.group(4)),
                              "admit": float(m.group(5)), "admit_cas": None if m.group(6) is None else float(m.group(6))})
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
