#!/usr/bin/env bash
# Spring Cloud Gateway with cellrate (local table, and cellrate-redis) vs the gateway's own RedisRateLimiter and
# Bucket4jRateLimiter (Bucket4j's Lettuce proxy manager), one after the other on one loopback redis-server (the
# binary the embedded-redis artifact ships), under wrk: requests/s and latency percentiles. Every request is
# admitted (rate and burst 1,000,000/s), so each run pays one decision per request and routes it.
# Usage: spring/bench/side-by-side.sh [seconds] [connections]
# Needs: wrk (Debian package) and the jar: mvn -B -Pspring-bench -pl spring/bench -am -DskipTests package
set -euo pipefail
SECONDS_PER_RUN=${1:-10}; CONNECTIONS=${2:-32}
JAR=spring/bench/target/spring-bench.jar
REDIS_JAR=$(ls ~/.m2/repository/com/github/codemonstur/embedded-redis/*/embedded-redis-*.jar | head -1)
REDIS_BIN=/tmp/side-by-side-redis-server.$$
unzip -p "$REDIS_JAR" redis-server-6.2.6-v5-linux-amd64 > $REDIS_BIN; chmod +x $REDIS_BIN
$REDIS_BIN --port 16379 --bind 127.0.0.1 --save "" --appendonly no > /dev/null &
REDIS=$!
trap 'kill $REDIS 2>/dev/null; rm -f $REDIS_BIN' EXIT
summary() { # name, wrk output
  local rps p50 p99 non2xx
  rps=$(echo "$2" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$2" | awk '$1=="50%" {print $2}'); p99=$(echo "$2" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$2" | awk '/Non-2xx/ {print $5}')
  echo "$1 rps=$rps p50=$p50 p99=$p99 non2xx=${non2xx:-0}"
}
echo "host: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
BACKEND=18090
for limiter in cellrate cellrate-redis scg-redis bucket4j; do
  BACKEND=$((BACKEND + 1))
  java -Xms256m -Xmx256m -jar $JAR --limiter $limiter --port 18080 --backend-port $BACKEND --redis-port 16379 \
    > /tmp/side-by-side-$limiter.log 2>&1 &
  pid=$!
  for i in $(seq 1 240); do grep -q '^ready' /tmp/side-by-side-$limiter.log && break; sleep 0.5; done
  curl -s -D - -o /dev/null http://127.0.0.1:18080/ | grep -iE '^(HTTP|retry-after|ratelimit|x-ratelimit)' | tr -d '\r' \
    | sed "s/^/$limiter header: /"
  wrk -t1 -c$CONNECTIONS -d5s http://127.0.0.1:18080/ > /dev/null   # warm-up
  summary "$limiter" "$(wrk -t1 -c$CONNECTIONS -d${SECONDS_PER_RUN}s --latency http://127.0.0.1:18080/)"
  kill $pid; wait $pid 2>/dev/null || true
done
