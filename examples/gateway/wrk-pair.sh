#!/usr/bin/env bash
# Load run: the same trivial Netty backend without and with HttpRateLimitHandler, in one run, alternating.
# Usage: examples/gateway/wrk-pair.sh [rounds] [seconds] [connections]
# Needs: wrk (Debian package), examples/gateway/target/gateway.jar (mvn -B -pl engine,netty,examples/gateway -am package -DskipTests)
set -euo pipefail
ROUNDS=${1:-5}; SECONDS_PER_RUN=${2:-10}; CONNECTIONS=${3:-32}
PLAIN=18081; LIMITED=18082
java --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED -Xms256m -Xmx256m -cp examples/gateway/target/gateway.jar dev.cellrate.examples.gateway.BenchServers $PLAIN $LIMITED &
SERVER=$!
trap 'kill $SERVER' EXIT
for i in $(seq 1 60); do curl -s -o /dev/null http://127.0.0.1:$LIMITED/ && break; sleep 0.5; done
# warm both JITs
wrk -t1 -c$CONNECTIONS -d5s http://127.0.0.1:$PLAIN/ >/dev/null
wrk -t1 -c$CONNECTIONS -d5s http://127.0.0.1:$LIMITED/ >/dev/null
for r in $(seq 1 "$ROUNDS"); do
  for port in $PLAIN $LIMITED; do
    [ $((r % 2)) -eq 0 ] && port=$(( PLAIN + LIMITED - port ))   # alternate which goes first
    name=$([ $port -eq $PLAIN ] && echo plain || echo limited)
    out=$(wrk -t1 -c$CONNECTIONS -d${SECONDS_PER_RUN}s --latency http://127.0.0.1:$port/)
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1=="50%" {print $2}'); p99=$(echo "$out" | awk '$1=="99%" {print $2}')
    non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')
    echo "round $r $name rps=$rps p50=$p50 p99=$p99 non2xx=${non2xx:-0}"
  done
done
