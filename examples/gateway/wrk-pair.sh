#!/usr/bin/env bash
# Load run: the same trivial Netty backend without and with HttpRateLimitHandler, in one run.
# Usage: examples/gateway/wrk-pair.sh [rounds] [seconds] [connections] [mode]
#   mode "alternate" (default): plain and limited one after the other, the order swapped every round;
#   mode "together": both at the same time (two wrk processes), so background load hits both alike.
# Needs: wrk (Debian package), examples/gateway/target/gateway.jar
#   (mvn -B -q -pl engine,netty,examples/gateway -am package -DskipTests -Djcstress.skip=true)
set -euo pipefail
ROUNDS=${1:-5}; SECONDS_PER_RUN=${2:-10}; CONNECTIONS=${3:-32}; MODE=${4:-alternate}
PLAIN=18081; LIMITED=18082
java --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED -Xms256m -Xmx256m -cp examples/gateway/target/gateway.jar \
  dev.cellrate.examples.gateway.BenchServers $PLAIN $LIMITED &
SERVER=$!
trap 'kill $SERVER' EXIT
for i in $(seq 1 60); do curl -s -o /dev/null http://127.0.0.1:$LIMITED/ && break; sleep 0.5; done
# warm both JITs
wrk -t1 -c$CONNECTIONS -d5s http://127.0.0.1:$PLAIN/ >/dev/null
wrk -t1 -c$CONNECTIONS -d5s http://127.0.0.1:$LIMITED/ >/dev/null
summary() { # name, wrk output
  local rps p50 p99 non2xx
  rps=$(echo "$2" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$2" | awk '$1=="50%" {print $2}'); p99=$(echo "$2" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$2" | awk '/Non-2xx/ {print $5}')
  echo "$1 rps=$rps p50=$p50 p99=$p99 non2xx=${non2xx:-0}"
}
for r in $(seq 1 "$ROUNDS"); do
  if [ "$MODE" = together ]; then
    wrk -t1 -c$CONNECTIONS -d${SECONDS_PER_RUN}s --latency http://127.0.0.1:$PLAIN/ > /tmp/wrk-pair-plain.$$ &
    wrk -t1 -c$CONNECTIONS -d${SECONDS_PER_RUN}s --latency http://127.0.0.1:$LIMITED/ > /tmp/wrk-pair-limited.$$
    wait %%
    summary "round $r plain" "$(cat /tmp/wrk-pair-plain.$$)"
    summary "round $r limited" "$(cat /tmp/wrk-pair-limited.$$)"
    rm -f /tmp/wrk-pair-plain.$$ /tmp/wrk-pair-limited.$$
  else
    for port in $PLAIN $LIMITED; do
      [ $((r % 2)) -eq 0 ] && port=$(( PLAIN + LIMITED - port ))   # alternate which goes first
      name=$([ $port -eq $PLAIN ] && echo plain || echo limited)
      summary "round $r $name" "$(wrk -t1 -c$CONNECTIONS -d${SECONDS_PER_RUN}s --latency http://127.0.0.1:$port/)"
    done
  fi
done
