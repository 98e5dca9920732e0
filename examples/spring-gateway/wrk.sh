#!/usr/bin/env bash
# Load run of the Spring Cloud Gateway example: its backend alone, the gateway admitting everything (the limiter
# decides, never refuses), and the gateway refusing almost everything (rate 10/s), one after the other.
# Usage: examples/spring-gateway/wrk.sh [seconds] [connections]
# Needs: wrk (Debian package), examples/spring-gateway/target/spring-gateway.jar
#   (mvn -B -pl examples/spring-gateway -am -DskipTests package)
set -euo pipefail
SECONDS_PER_RUN=${1:-10}; CONNECTIONS=${2:-32}
JAR=examples/spring-gateway/target/spring-gateway.jar
summary() { # name, wrk output
  local rps p50 p99 non2xx
  rps=$(echo "$2" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$2" | awk '$1=="50%" {print $2}'); p99=$(echo "$2" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$2" | awk '/Non-2xx/ {print $5}')
  echo "$1 rps=$rps p50=$p50 p99=$p99 non2xx=${non2xx:-0}"
}
run() { # name, rate, burst
  java -Xms256m -Xmx256m -jar $JAR --port 18080 --backend-port 18090 --rate "$2" --burst "$3" \
    --logging.level.root=warn > /tmp/spring-gateway-wrk.$$ 2>&1 &
  local pid=$!
  for i in $(seq 1 240); do curl -s -o /dev/null http://127.0.0.1:18080/actuator/health && break; sleep 0.5; done
  wrk -t1 -c$CONNECTIONS -d5s http://127.0.0.1:18080/ > /dev/null         # warm-up
  if [ "$1" = "gateway-admitting" ]; then
    summary "backend-alone" "$(wrk -t1 -c$CONNECTIONS -d${SECONDS_PER_RUN}s --latency http://127.0.0.1:18090/)"
  fi
  summary "$1" "$(wrk -t1 -c$CONNECTIONS -d${SECONDS_PER_RUN}s --latency http://127.0.0.1:18080/)"
  kill $pid; wait $pid 2>/dev/null || true
  rm -f /tmp/spring-gateway-wrk.$$
}
echo "host: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
run gateway-admitting 1000000000 1000000000
run gateway-refusing 10 10
