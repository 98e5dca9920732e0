#!/usr/bin/env bash
# The headline benchmark run: every ratio of docs/benchmarks.md's targets table, RUNS times (default 3), then
# the memory-per-key program, then the markdown tables with each ratio's median and range over the runs.
#
#   jmh/headline.sh [OUT_PREFIX]          default OUT_PREFIX: jmh/results/headline
#
# Each run is one JMH invocation of the whole headline with one fork per benchmark, so a ratio is taken inside
# one run (cellrate, its peers and its baselines back to back) and the runs are spread over time: a burst of
# load from another process hits one run, not one benchmark of every run. About 3.5 minutes a run on 2 quiet
# cores, under 12 minutes in all.
#
# Writes OUT_PREFIX-run<i>.json / .txt (JMH, one per run), OUT_PREFIX-memory.txt, OUT_PREFIX-load.txt (uptime
# before and after each run: the machine is shared) and OUT_PREFIX.md (the tables). To put the tables into the doc:
#   python3 jmh/tables.py jmh/results/headline-run*.json --memory jmh/results/headline-memory.txt --update docs/benchmarks.md
# Builds the jars first if they are missing. Extra arguments after OUT_PREFIX go to JMH. Knobs:
#   RUNS=3                      how many runs
#   HEADLINE_SHAPE="-f 1 ..."   the shape of one run, e.g. "-f 1 -wi 1 -w 1s -i 1 -r 1s" for a smoke run
#   KEYS=1000000                key count of the keyed rows and of the memory program
#   TARGETS=...                 keyed targets (default cellrate,randomCas,hashOnly,bucket4jMap; Caffeine is left out
#                               for time: add bucket4jCaffeine to run it)
#   JARS=jmh/target             where benchmarks.jar and demo.jar are (e.g. a saved "before" build)
#   JMH_LOCK=-Djmh.ignoreLock=true  (default) run even if another JMH holds /tmp/jmh.lock: on a machine shared by
#                               several builds the lock only says someone else is measuring; say so with the numbers
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-jmh/results/headline}
shift || true
mkdir -p "$(dirname "$OUT")"
JARS=${JARS:-jmh/target}
if [[ ! -f $JARS/benchmarks.jar || ! -f $JARS/demo.jar ]]; then
    mvn -B -q package -DskipTests -Djcstress.skip=true
fi

RUNS=${RUNS:-3}
KEYS=${KEYS:-1000000}
TARGETS=${TARGETS:-cellrate,randomCas,hashOnly,bucket4jMap}
SHAPE=${HEADLINE_SHAPE:-"-f 1 -wi 2 -w 300ms -i 3 -r 400ms"}
SINGLE='cellrateCallerTime|cellrateNanoClock|guava|bucket4jLockFree|resilience4j'
# Benchmarks that exist only in newer jars are asked for by regexp, so an older jar (a "before" run) simply
# runs fewer rows.
: > "$OUT-load.txt"
for run in $(seq 1 "$RUNS"); do
    echo "run $run before: $(uptime)" | tee -a "$OUT-load.txt"
    java ${JMH_LOCK:--Djmh.ignoreLock=true} -jar "$JARS/benchmarks.jar" \
        "AdmitOneThreadBenchmark\.($SINGLE|bucket4jSynchronized|baselineAtomicIncrement|baselineNanoTimeAtomicIncrement|baselineAtomicGetCompareAndExchange)\$" \
        "AdmitTwoThreadsBenchmark\.($SINGLE|baselineAtomicIncrement|baselineAtomicGetCompareAndExchange)\$" \
        "Reject(OneThread|TwoThreads)Benchmark\.(cellrateCallerTime|guava|bucket4jLockFree|resilience4j|baselineAtomicGet)\$" \
        "AdmitLatencyBenchmark\.(cellrateCallerTime|guava|bucket4jLockFree)\$" \
        "KeyedBenchmark\.(longKey|stringKey|bytesKey)\$" \
        "KeyedBatchBenchmark\.(single|batch|singleBytes|batchBytes)\$" \
        -p keys="$KEYS" -p distribution=uniform \
        -p target="$TARGETS" \
        $SHAPE \
        -prof gc \
        -rf json -rff "$OUT-run$run.json" \
        "$@" | tee "$OUT-run$run.txt"
    echo "run $run after:  $(uptime)" | tee -a "$OUT-load.txt"
done

java -jar "$JARS/demo.jar" memory "$KEYS" | tee "$OUT-memory.txt"
runs=()
for run in $(seq 1 "$RUNS"); do runs+=("$OUT-run$run.json"); done
python3 jmh/tables.py "${runs[@]}" --memory "$OUT-memory.txt" > "$OUT.md"
echo "tables: $OUT.md"
