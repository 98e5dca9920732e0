#!/usr/bin/env bash
# Memory pages A/B (docs/keyed-table.md, "Huge pages"): PagesCpuTime in fresh JVMs, alternating
#   4k    the default (THP is "madvise" here: nothing asks for huge pages)
#   thp   GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (malloc madvises its mmap'd chunks: the off-heap tables)
#   thp+heap  the same and -XX:+UseTransparentHugePages (the Java heap: key streams, Strings, Bucket4j's maps)
# with uptime before each JVM.   tools/lab/pages-ab.sh OUT_DIR [PAIRS=3] [ROUNDS=3] [ARMS="4k thp thp+heap"]
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?out dir}; PAIRS=${2:-3}; ROUNDS=${3:-3}; ARMS=${4:-"4k thp thp+heap"}
JAR=${JAR:-tools/lab/target/lab.jar}
mkdir -p "$OUT"
for p in $(seq 1 "$PAIRS"); do
    for arm in $ARMS; do
        case $arm in
            4k) envs=(); flags=() ;;
            thp) envs=(GLIBC_TUNABLES=glibc.malloc.hugetlb=1); flags=() ;;
            thp+heap) envs=(GLIBC_TUNABLES=glibc.malloc.hugetlb=1); flags=(-XX:+UseTransparentHugePages) ;;
            heap) envs=(); flags=(-XX:+UseTransparentHugePages) ;;
        esac
        f="$OUT/$arm-$p.txt"
        echo "# $arm pair $p start $(date -u +%H:%M:%S) $(uptime)" > "$f"
        env "${envs[@]}" java "${flags[@]}" --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp "$JAR" \
            dev.cellrate.bench.PagesCpuTime "$ROUNDS" >> "$f" 2>&1
        echo "# end $(date -u +%H:%M:%S) $(uptime)" >> "$f"
        echo "$f done"
    done
done
