#!/usr/bin/env bash
# The headline benchmark run: every ratio of docs/benchmarks.md's targets table from ONE JMH run
# (about 4.5 minutes on 2 quiet cores: 33 runs x 2 forks, ~3 s a fork, ~10 s for the keyed peers' forks), then the memory-per-key program (~20 s), then the markdown tables.
#
#   jmh/headline.sh [OUT_PREFIX]          default OUT_PREFIX: jmh/results/headline
#
# Writes OUT_PREFIX.json (JMH), OUT_PREFIX.txt (JMH console), OUT_PREFIX-memory.txt and OUT_PREFIX.md
# (the tables). To put the tables into the doc:
#   python3 jmh/tables.py jmh/results/headline.json --memory jmh/results/headline-memory.txt --update docs/benchmarks.md
# Builds the jars first if they are missing. Extra arguments after OUT_PREFIX go to JMH; the run shape can be
# replaced for a smoke run with HEADLINE_SHAPE, e.g. HEADLINE_SHAPE="-f 1 -wi 1 -w 1s -i 1 -r 1s".
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-jmh/results/headline}
shift || true
mkdir -p "$(dirname "$OUT")"
if [[ ! -f jmh/target/benchmarks.jar || ! -f jmh/target/demo.jar ]]; then
    mvn -B -q package -DskipTests -Djcstress.skip=true
fi

SHAPE=${HEADLINE_SHAPE:-"-f 2 -wi 2 -w 300ms -i 3 -r 400ms"}
SINGLE='cellrateCallerTime|cellrateNanoClock|guava|bucket4jLockFree|resilience4j'
java -jar jmh/target/benchmarks.jar \
    "AdmitOneThreadBenchmark\.($SINGLE|bucket4jSynchronized|baselineAtomicIncrement|baselineNanoTimeAtomicIncrement)\$" \
    "AdmitTwoThreadsBenchmark\.($SINGLE|baselineAtomicIncrement)\$" \
    "Reject(OneThread|TwoThreads)Benchmark\.(cellrateCallerTime|guava|bucket4jLockFree|resilience4j)\$" \
    "AdmitLatencyBenchmark\.(cellrateCallerTime|guava|bucket4jLockFree)\$" \
    "KeyedBenchmark\.(longKey|stringKey)\$" \
    -p keys=1000000 -p distribution=uniform -p target=cellrate,randomCas,bucket4jMap,bucket4jCaffeine \
    $SHAPE \
    -prof gc \
    -rf json -rff "$OUT.json" \
    "$@" | tee "$OUT.txt"

java -jar jmh/target/demo.jar memory 1000000 | tee "$OUT-memory.txt"
python3 jmh/tables.py "$OUT.json" --memory "$OUT-memory.txt" > "$OUT.md"
echo "tables: $OUT.md"
