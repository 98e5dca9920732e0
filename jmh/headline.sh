#!/usr/bin/env bash
# The headline benchmark run: every ratio of docs/benchmarks.md's targets table, RUNS times (default 3), then
# the memory-per-key program, then the markdown tables with each ratio's median and range over the runs.
#
#   jmh/headline.sh [OUT_PREFIX]          default OUT_PREFIX: jmh/results/headline
#
# Each run is three JMH invocations back to back: the single-limiter rows (admit, reject, latency) with one fork per
# benchmark; the keyed rows at KEYS (KeyedBenchmark, KeyedBatchBenchmark with its random-CAS floors) with KEYED_FORKS
# forks per benchmark (the keyed rows differ between forks more than anything else: each fork allocates its tables
# anew, see "Huge pages" in docs/keyed-table.md); and the keyed rows at BIG_KEYS (10 M keys: a table no L3 holds),
# long keys only, cellrate against its random-CAS floors, with BIG_FORKS forks. Every goal is cellrate against a
# floor measured in the same invocation. A ratio is taken inside one run (a keyed score is the median of its forks'
# means) and the runs are spread over time: a burst of load from another process hits one run, not one benchmark
# of every run. Budget: under 15 minutes in all on 2 quiet cores with the defaults (estimated 4.7-5 minutes a run);
# the byte-key batch rows (information only) are left out for time: run KeyedBatchBenchmark.(single|batch)Bytes alone.
#
# Then, once per run, KeyedCpuTime (tools/lab; one JVM, CPU time of the thread) at KEYS and BIG_KEYS: the keyed ÷
# random-CAS and batch ÷ floor-batch ratios paired in one JVM, which hold from JVM to JVM where the absolute keyed
# scores do not (docs/benchmarks.md, "Reading the numbers"); tables.py reports them beside the JMH rows.
#
# Writes OUT_PREFIX-run<i>.json (both invocations of run i, merged) and .txt, OUT_PREFIX-cpu<i>.txt, OUT_PREFIX-memory.txt,
# OUT_PREFIX-load.txt (uptime before and after each run: the machine is shared), OUT_PREFIX-host.txt (lscpu summary,
# kernel, JVM, start and end) and OUT_PREFIX.md (the tables).
# To put the tables into the doc:
#   python3 jmh/tables.py jmh/results/headline-run*.json --memory jmh/results/headline-memory.txt --update docs/benchmarks.md
# Builds the jars first if they are missing (jmh/target/benchmarks.jar; tools/lab/target/lab.jar for KeyedCpuTime and
# MemoryPerKey). Extra arguments after OUT_PREFIX go to both JMH invocations. Knobs:
#   RUNS=3                      how many runs
#   HEADLINE_SHAPE="-f 1 ..."   the shape of one run, e.g. "-f 1 -wi 1 -w 1s -i 1 -r 1s" for a smoke run; its -f is
#                               the single-limiter rows' fork count
#   KEYED_FORKS=3               forks per keyed benchmark in each run (replaces HEADLINE_SHAPE's -f for the keyed
#                               rows; KEYED_FORKS=1 gives the old one-fork-per-run shape)
#   KEYS=1000000                key count of the keyed rows and of the memory program
#   BIG_KEYS=10000000           key count of the second keyed invocation (long keys, cellrate and its floors only);
#                               BIG_KEYS= (empty) leaves it out
#   BIG_FORKS=1                 forks per benchmark at BIG_KEYS (each fork inserts 10 M keys: the budget allows one)
#   TARGETS=...                 keyed targets (default cellrate,randomCas,hashOnly,bucket4jMap; Caffeine is left out
#                               for time: add bucket4jCaffeine to run it)
#   JARS=jmh/target             where benchmarks.jar is (e.g. a saved "before" build)
#   LAB_JAR=tools/lab/target/lab.jar  the lab tools (KeyedCpuTime, MemoryPerKey)
#   HUGE_PAGES=1                every JVM of the run on transparent huge pages, peers and baselines alike (opt-in; the
#                               default headline is the default JVM): GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (off-heap
#                               tables: malloc madvises its mmap'd chunks) and -XX:+UseTransparentHugePages (heap), and
#                               each keyed fork prints its table's smaps line (AnonHugePages) at its end
#   SMAPS=1                     only the smaps lines, default pages
#   PAIRED=1                    (default) run KeyedCpuTime once per run, at KEYS and BIG_KEYS (PAIRED=0 to leave it out)
#   PAIRED_ROUNDS=3             KeyedCpuTime's rounds (the median of the rounds is its number)
#   JMH_LOCK=-Djmh.ignoreLock=true  (default) run even if another JMH holds /tmp/jmh.lock: on a machine shared by
#                               several builds the lock only says someone else is measuring; say so with the numbers
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-jmh/results/headline}
shift || true
mkdir -p "$(dirname "$OUT")"
JARS=${JARS:-jmh/target}
LAB_JAR=${LAB_JAR:-tools/lab/target/lab.jar}
if [[ ! -f $JARS/benchmarks.jar || ! -f $LAB_JAR ]]; then
    mvn -B -q package -pl jmh,tools/lab -am -DskipTests -Djcstress.skip=true
fi

RUNS=${RUNS:-3}
KEYS=${KEYS:-1000000}
TARGETS=${TARGETS:-cellrate,randomCas,hashOnly,bucket4jMap}
SHAPE=${HEADLINE_SHAPE:-"-f 1 -wi 2 -w 300ms -i 3 -r 400ms"}
KEYED_FORKS=${KEYED_FORKS:-3}
BIG_KEYS=${BIG_KEYS-10000000}
BIG_FORKS=${BIG_FORKS:-1}
PAIRED_ROUNDS=${PAIRED_ROUNDS:-3}
# the keyed rows' shape: HEADLINE_SHAPE with its fork count replaced (JMH refuses an option given twice)
KEYED_SHAPE="$(sed -E 's/(^|[[:space:]])-f[[:space:]]+[0-9]+//g' <<< "$SHAPE") -f $KEYED_FORKS"
BIG_SHAPE="$(sed -E 's/(^|[[:space:]])-f[[:space:]]+[0-9]+//g' <<< "$SHAPE") -f $BIG_FORKS"
PAGES=()
CPU_FLAGS=()
if [[ ${HUGE_PAGES:-0} == 1 ]]; then
    export GLIBC_TUNABLES=${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1
    PAGES=(-jvmArgsPrepend "-XX:+UseTransparentHugePages -Dcellrate.bench.smaps=true")
    CPU_FLAGS=(-XX:+UseTransparentHugePages)
    echo "huge pages: GLIBC_TUNABLES=$GLIBC_TUNABLES, JMH forks get -XX:+UseTransparentHugePages"
elif [[ ${SMAPS:-0} == 1 ]]; then
    PAGES=(-jvmArgsPrepend "-Dcellrate.bench.smaps=true")
fi
SINGLE='cellrateCallerTime|cellrateNanoClock|guava|bucket4jLockFree|resilience4j'
# Benchmarks that exist only in newer jars are asked for by regexp, so an older jar (a "before" run) simply
# runs fewer rows.
# The machine of this headline (docs/benchmarks.md prints it above the tables: tables.py reads OUT_PREFIX-host.txt).
{
    lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|Hypervisor vendor|L1d cache|L2 cache|L3 cache):' || true
    echo "Memory: $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo)"
    echo "Clock source: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
    echo "Kernel: $(uname -sr)"
    echo "Java: $(java -version 2>&1 | head -1)"
    echo "Started: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uptime | sed 's/.*load average/load average/')"
} > "$OUT-host.txt"
: > "$OUT-load.txt"
for run in $(seq 1 "$RUNS"); do
    echo "run $run before: $(uptime)" | tee -a "$OUT-load.txt"
    rm -f "$OUT-cpu$run.txt"  # tables.py reads it if it is there: none from an earlier headline
    java ${JMH_LOCK:--Djmh.ignoreLock=true} -jar "$JARS/benchmarks.jar" \
        "AdmitOneThreadBenchmark\.($SINGLE|bucket4jSynchronized|baselineAtomicIncrement|baselineNanoTimeAtomicIncrement|baselineAtomicGetCompareAndExchange)\$" \
        "AdmitTwoThreadsBenchmark\.($SINGLE|baselineAtomicIncrement|baselineAtomicGetCompareAndExchange)\$" \
        "Reject(OneThread|TwoThreads)Benchmark\.(cellrateCallerTime|guava|bucket4jLockFree|resilience4j|baselineAtomicGet)\$" \
        "AdmitLatencyBenchmark\.(cellrateCallerTime|guava|bucket4jLockFree)\$" \
        $SHAPE \
        "${PAGES[@]}" \
        -prof gc \
        -rf json -rff "$OUT-part-single$run.json" \
        "$@" | tee "$OUT-run$run.txt"
    echo "run $run keyed:  $(uptime)" | tee -a "$OUT-load.txt"
    java ${JMH_LOCK:--Djmh.ignoreLock=true} -jar "$JARS/benchmarks.jar" \
        "KeyedBenchmark\.(longKey|stringKey|bytesKey)\$" \
        "KeyedBatchBenchmark\.(single|batch|floorSingle|floorBatch)\$" \
        -p keys="$KEYS" -p distribution=uniform \
        -p target="$TARGETS" \
        $KEYED_SHAPE \
        "${PAGES[@]}" \
        -prof gc \
        -rf json -rff "$OUT-part-keyed$run.json" \
        "$@" | tee -a "$OUT-run$run.txt"
    parts=("$OUT-part-single$run.json" "$OUT-part-keyed$run.json")
    if [[ -n $BIG_KEYS ]]; then
        echo "run $run keyed $BIG_KEYS: $(uptime)" | tee -a "$OUT-load.txt"
        java ${JMH_LOCK:--Djmh.ignoreLock=true} -jar "$JARS/benchmarks.jar" \
            "KeyedBenchmark\.longKey\$" \
            "KeyedBatchBenchmark\.(single|batch|floorSingle|floorBatch)\$" \
            -p keys="$BIG_KEYS" -p distribution=uniform \
            -p target=cellrate,randomCas \
            $BIG_SHAPE \
            "${PAGES[@]}" \
            -prof gc \
            -rf json -rff "$OUT-part-big$run.json" \
            "$@" | tee -a "$OUT-run$run.txt"
        parts+=("$OUT-part-big$run.json")
    fi
    if [[ ${PAIRED:-1} == 1 ]]; then
        echo "run $run paired: $(uptime)" | tee -a "$OUT-load.txt"
        java "${CPU_FLAGS[@]}" --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp "$LAB_JAR" \
            dev.cellrate.bench.KeyedCpuTime "$PAIRED_ROUNDS" "$KEYS" $BIG_KEYS | tee "$OUT-cpu$run.txt" \
            || echo "KeyedCpuTime did not run (an older jar?)"
    fi
    python3 -c 'import json, sys; json.dump([e for p in sys.argv[2:] for e in json.load(open(p))], open(sys.argv[1], "w"), indent=2)' \
        "$OUT-run$run.json" "${parts[@]}"
    echo "run $run after:  $(uptime)" | tee -a "$OUT-load.txt"
done

java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp "$LAB_JAR" dev.cellrate.bench.MemoryPerKey "$KEYS" \
    | tee "$OUT-memory.txt"
echo "Ended: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uptime | sed 's/.*load average/load average/')" >> "$OUT-host.txt"
runs=()
for run in $(seq 1 "$RUNS"); do runs+=("$OUT-run$run.json"); done
python3 jmh/tables.py "${runs[@]}" --memory "$OUT-memory.txt" > "$OUT.md"
echo "tables: $OUT.md"
