#!/usr/bin/env bash
# Before and after a change: the headline's cellrate rows at two git revisions, the two benchmark jars alternated
# (old, new, old, new, ...) for ROUNDS rounds on the same machine, so that both sides share its load; then one
# markdown table of each benchmark's median per side and the cost ratio new ÷ old, with a verdict against 1.05.
#
#   jmh/ab.sh OLD_REV [NEW_REV [FILTER]]   NEW_REV defaults to HEAD; any revision git rev-parse accepts
#
# FILTER (or ONLY=...): a JMH benchmark regex; only the benchmarks it matches run, in one invocation per side with
# the keyed rows' options and parameters (KEYS, KEYED_FORKS), e.g. to re-run two rows quickly:
#   jmh/ab.sh OLD HEAD 'KeyedBatchBenchmark\.batch$|KeyedBenchmark\.stringKey$'
#
# Each revision is checked out in a temporary worktree under /tmp and its jar built there
# (mvn -B -q -pl jmh -am -DskipTests package: nothing is installed into ~/.m2); built jars are kept by commit in
# JAR_CACHE, so a second comparison against the same revision does not build it again.
#
# Rows (ROWS=cellrate, the default): the headline's benchmarks that run cellrate's code, with the headline's
# options: admit 1 and 2 threads (caller time and nanoTime per call), reject 1 and 2 threads, the latency of an
# admit (SampleTime: the mean, ns/op), keyed long, string and byte keys at KEYS (target cellrate), the batch and
# its one-call-per-key row at KEYS and at BIG_KEYS, and long keys at BIG_KEYS. ROWS=all runs every row of the
# headline: the peers and the floors as well (about twice the time).
# A benchmark missing from one jar (added, or renamed: RENAMES="NewClass.newMethod=OldClass.oldMethod,..." maps
# a new name to its old one) is marked n/a.
#
# Cost ratio: for a throughput score old ÷ new, for a time score new ÷ old, so above 1 means the new revision is
# slower; the verdict is "ok" at ≤ 1.05. Medians are over the rounds (over rounds × forks for the keyed rows).
#
# Knobs: ROUNDS=3, SHAPE (single-limiter rows, default the headline's "-f 1 -wi 2 -w 300ms -i 3 -r 400ms"; its -f
# is their fork count), KEYED_FORKS=2 (forks per keyed benchmark per round), BIG_KEYS=10000000 (empty: leave the
# 10 M rows out), BIG_FORKS=1, KEYS=1000000, OUT=jmh/results/ab, JAR_CACHE=/tmp/cellrate-ab-jars.
# Budget: about 2 minutes a side per round with the defaults, about 13 minutes for 3 rounds plus two builds on 2
# cores. A smoke run (numbers meaningless): SHAPE="-f 1 -wi 0 -i 1 -r 100ms" KEYED_FORKS=1 ROUNDS=1 BIG_KEYS= jmh/ab.sh OLD
# With a FILTER, BIG_KEYS is not used: set KEYS=10000000 to run the filtered rows at 10 M keys.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
    sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
OLD=$(git rev-parse --verify "$1^{commit}")
NEW=$(git rev-parse --verify "${2:-HEAD}^{commit}")
ONLY=${3:-${ONLY:-}}
ROUNDS=${ROUNDS:-3}
ROWS=${ROWS:-cellrate}
SHAPE=${SHAPE:-"-f 1 -wi 2 -w 300ms -i 3 -r 400ms"}
KEYED_FORKS=${KEYED_FORKS:-2}
BIG_FORKS=${BIG_FORKS:-1}
KEYS=${KEYS:-1000000}
BIG_KEYS=${BIG_KEYS-10000000}
OUT=${OUT:-jmh/results/ab}
JAR_CACHE=${JAR_CACHE:-/tmp/cellrate-ab-jars}
mkdir -p "$OUT" "$JAR_CACHE"
rm -f "$OUT"/old-*.json "$OUT"/new-*.json

# The jar of one commit: from the cache, or built in a temporary worktree.
jar_of() {
    local rev=$1 jar="$JAR_CACHE/$1.jar" tree
    if [[ ! -f $jar ]]; then
        tree=$(mktemp -d /tmp/cellrate-ab-tree.XXXXXX)
        git worktree add -q --detach "$tree" "$rev" >&2
        echo "building $rev in $tree" >&2
        if ! (cd "$tree" && { mvn -B -q -o -Dstyle.color=never -pl jmh -am -DskipTests -Djcstress.skip=true package >&2 \
                || mvn -B -q -Dstyle.color=never -pl jmh -am -DskipTests -Djcstress.skip=true package >&2; }); then
            git worktree remove --force "$tree"
            echo "build of $rev failed" >&2
            return 1
        fi
        cp "$tree/jmh/target/benchmarks.jar" "$jar.tmp" && mv "$jar.tmp" "$jar"
        git worktree remove --force "$tree"
    fi
    echo "$jar"
}
OLD_JAR=$(jar_of "$OLD")
NEW_JAR=$(jar_of "$NEW")

strip_forks() { sed -E 's/(^|[[:space:]])-f[[:space:]]+[0-9]+//g' <<< "$1"; }
KEYED_SHAPE="$(strip_forks "$SHAPE") -f $KEYED_FORKS"
BIG_SHAPE="$(strip_forks "$SHAPE") -f $BIG_FORKS"
if [[ $ROWS == all ]]; then
    SINGLE='cellrateCallerTime|cellrateNanoClock|guava|bucket4jLockFree|resilience4j'
    ADMIT1="($SINGLE|bucket4jSynchronized|baselineAtomicIncrement|baselineNanoTimeAtomicIncrement|baselineAtomicGetCompareAndExchange)"
    ADMIT2="($SINGLE|baselineAtomicIncrement|baselineAtomicGetCompareAndExchange)"
    REJECT='(cellrateCallerTime|guava|bucket4jLockFree|resilience4j|baselineAtomicGet)'
    LATENCY='(cellrateCallerTime|guava|bucket4jLockFree)'
    BATCH='(single|batch|floorSingle|floorBatch)'
    TARGETS=cellrate,randomCas,hashOnly,bucket4jMap
    BIG_TARGETS=cellrate,randomCas
else
    ADMIT1='(cellrateCallerTime|cellrateNanoClock)'
    ADMIT2=$ADMIT1
    REJECT='cellrateCallerTime'
    LATENCY='cellrateCallerTime'
    BATCH='(single|batch)'
    TARGETS=cellrate
    BIG_TARGETS=cellrate
fi

# One side of one round: the headline's three invocations, JSON merged into OUT/<side>-<round>.json.
run_side() {
    local side=$1 round=$2 jar=$3 base="$OUT/$1-$2" parts=()
    if [[ -n $ONLY ]]; then
        java -Djmh.ignoreLock=true -jar "$jar" "$ONLY" \
            -p keys="$KEYS" -p distribution=uniform -p target="$TARGETS" \
            $KEYED_SHAPE -prof gc -rf json -rff "$base-only.json" > "$base.txt" 2>&1 || true
        python3 -c 'import json, os, sys; json.dump(json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2])
            and os.path.getsize(sys.argv[2]) > 0 else [], open(sys.argv[1], "w"))' "$base.json" "$base-only.json"
        rm -f "$base-only.json"
        return
    fi
    # A jar without any of an invocation's benchmarks (an old revision) makes JMH exit non-zero: that
    # invocation then simply has no rows.
    java -Djmh.ignoreLock=true -jar "$jar" \
        "AdmitOneThreadBenchmark\.$ADMIT1\$" "AdmitTwoThreadsBenchmark\.$ADMIT2\$" \
        "Reject(OneThread|TwoThreads)Benchmark\.$REJECT\$" "AdmitLatencyBenchmark\.$LATENCY\$" \
        $SHAPE -prof gc -rf json -rff "$base-single.json" > "$base.txt" 2>&1 || true
    java -Djmh.ignoreLock=true -jar "$jar" \
        "KeyedBenchmark\.(longKey|stringKey|bytesKey)\$" "KeyedBatchBenchmark\.$BATCH\$" \
        -p keys="$KEYS" -p distribution=uniform -p target="$TARGETS" \
        $KEYED_SHAPE -prof gc -rf json -rff "$base-keyed.json" >> "$base.txt" 2>&1 || true
    parts=("$base-single.json" "$base-keyed.json")
    if [[ -n $BIG_KEYS ]]; then
        java -Djmh.ignoreLock=true -jar "$jar" \
            "KeyedBenchmark\.longKey\$" "KeyedBatchBenchmark\.$BATCH\$" \
            -p keys="$BIG_KEYS" -p distribution=uniform -p target="$BIG_TARGETS" \
            $BIG_SHAPE -prof gc -rf json -rff "$base-big.json" >> "$base.txt" 2>&1 || true
        parts+=("$base-big.json")
    fi
    python3 -c 'import json, os, sys; json.dump([e for p in sys.argv[2:] if os.path.exists(p) and os.path.getsize(p) > 0
        for e in json.load(open(p))], open(sys.argv[1], "w"))' "$base.json" "${parts[@]}"
    rm -f "${parts[@]}"
}

START=$(date +%s)
{
    echo "old: $OLD ($(git log -1 --format=%s "$OLD" | cut -c1-60))"
    echo "new: $NEW ($(git log -1 --format=%s "$NEW" | cut -c1-60))"
    [[ -z $ONLY ]] || echo "only: $ONLY"
} | tee "$OUT/revisions.txt"
: > "$OUT/load.txt"
for round in $(seq 1 "$ROUNDS"); do
    for side in old new; do
        jar=$OLD_JAR; [[ $side == new ]] && jar=$NEW_JAR
        echo "round $round $side: $(uptime)" | tee -a "$OUT/load.txt"
        run_side "$side" "$round" "$jar"
    done
done
echo "ended: $(uptime); $(( ($(date +%s) - START) / 60 )) min $(( ($(date +%s) - START) % 60 )) s of runs" \
    | tee -a "$OUT/load.txt"

python3 - "$OUT" "$ROUNDS" "${RENAMES:-}" <<'PY' | tee "$OUT/ab.md"
import json, statistics, sys

out, rounds, renames = sys.argv[1], int(sys.argv[2]), sys.argv[3]
old_name = dict(pair.split('=', 1) for pair in renames.split(',') if '=' in pair)

def rows(side):
    """benchmark label -> (mode, unit, [score of every fork of every round]): a keyed score per fork."""
    found = {}
    for r in range(1, rounds + 1):
        for b in json.load(open(f'{out}/{side}-{r}.json')):
            name = '.'.join(b['benchmark'].split('.')[-2:])
            params = b.get('params', {})
            label = name + ''.join(f' {k}={params[k]}' for k in ('keys', 'target') if k in params)
            metric = b['primaryMetric']
            forks = [statistics.mean(f) for f in metric.get('rawData', []) if f] if b['mode'] != 'sample' else []
            found.setdefault(label, (b['mode'], metric['scoreUnit'], []))[2].extend(forks or [metric['score']])
    return found

old, new = rows('old'), rows('new')

def old_label(label):
    name, _, params = label.partition(' ')
    mapped = old_name.get(name, name)
    return mapped + (' ' + params if params else '')

def fmt(x):
    return f'{x:.3g}' if x < 100 else f'{x:.0f}'

print('| benchmark | unit | old median | new median | cost new ÷ old | ≤ 1.05 |')
print('| --- | --- | ---: | ---: | ---: | --- |')
for label in sorted(new):
    mode, unit, scores = new[label]
    before = old.get(old_label(label))
    if before is None:
        print(f'| {label} | {unit} | n/a | {fmt(statistics.median(scores))} | n/a | n/a (not in the old jar) |')
        continue
    o, n = statistics.median(before[2]), statistics.median(scores)
    cost = o / n if mode == 'thrpt' else n / o
    print(f'| {label} | {unit} | {fmt(o)} ({len(before[2])}) | {fmt(n)} ({len(scores)}) | {cost:.3f} | '
          f'{"ok" if cost <= 1.05 else "**slower**"} |')
for label in sorted(set(old) - {old_label(l) for l in new}):
    print(f'| {label} | {old[label][1]} | {fmt(statistics.median(old[label][2]))} | n/a | n/a | n/a (not in the new jar) |')
print()
print(f'Medians over {rounds} rounds, jars alternated (in brackets: how many scores, one per fork); '
      'cost = old ÷ new for ops/time, new ÷ old for time/op.')
PY
echo "table: $OUT/ab.md; load: $OUT/load.txt"
