#!/usr/bin/env bash
# The gateway RateLimiter's own cost per request (JMH, about 1.5 minutes): cellrate's CellrateRateLimiter (local
# limit, IETF headers and no headers), Spring Cloud Gateway's Bucket4jRateLimiter on Bucket4j's in-memory (Caffeine)
# proxy manager, and a bare Mono.just (no limiter), each with admit-heavy and reject-heavy traffic over 10,000 keys;
# ns/op and, from -prof gc, B/op (gc.alloc.rate.norm).
# Usage: spring/bench/limiter-cost.sh [extra JMH options]
# Needs the jar: mvn -B -Pspring-bench -pl spring/bench -am -DskipTests package
set -euo pipefail
echo "host: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
java -jar spring/bench/target/benchmarks.jar LimiterCostBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc "$@" \
  | grep -E '^(host|Benchmark|LimiterCostBenchmark)' | grep -vE ':gc\.(alloc\.rate|count|time) '
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
