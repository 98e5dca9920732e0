#!/usr/bin/env bash
# Measures cellrate-rls on loopback in one run: the floor (a grpc-java server of the same shape answering OK
# without deciding), the embedded GCRA service, and the service with --redis against a real redis-server,
# each driven by the same closed-loop grpc-java async load generator (rls/src/test/.../bench/LoadGenerator).
# Prints requests/s, the server processes' CPU (cores busy), requests/s per busy core, p50/p99/p99.9, and the
# server CPU split into JIT compiler threads, GC threads and the rest (the event loops).
# Last, the request path alone (RlsService.decide without gRPC): bytes allocated and ns per request.
#
#   rls/bench.sh                      (SECONDS_PER_RUN=10 WARMUP_S=10 INFLIGHT=16 KEYS=1000 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
RUN_S=${SECONDS_PER_RUN:-10}
INFLIGHT=${INFLIGHT:-16}
KEYS=${KEYS:-1000}
WARMUP_S=${WARMUP_S:-10}
TICKS=$(getconf CLK_TCK)
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

mvn -B -q -o -pl rls -am -DskipTests package dependency:build-classpath \
  -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test >/dev/null
CP="rls/target/test-classes:rls/target/classes:$(cat rls/target/bench-classpath.txt)"
JAVA_FLAGS="--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() { for _ in $(seq 1 200); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 never opened" >&2; exit 1; }
load() { java $JAVA_FLAGS -DwarmupSeconds="$WARMUP_S" -cp "$CP" dev.cellrate.rls.bench.LoadGenerator "$1" "$2" "$RUN_S" "$INFLIGHT" "$KEYS" "$TICKS" "$3"; }

mkdir -p "$WORK/config"
cat > "$WORK/config/bench.yaml" <<YAML
domain: bench
descriptors:
  - key: k
    rate_limit:
      unit: second
      requests_per_unit: 100000000
YAML

echo "# $(date -u +%FT%TZ) $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
echo "# inflight $INFLIGHT over 2 channels, $KEYS descriptors, ${RUN_S}s measured after ${WARMUP_S}s of warm-up; client, server and Redis share the machine"

P=$(free_port); java $JAVA_FLAGS -cp "$CP" dev.cellrate.rls.bench.FloorServer "$P" >/dev/null & PIDS+=($!); FLOOR=$!
wait_port "$P"; load floor "$P" "$FLOOR"; kill "$FLOOR"

P=$(free_port); java -jar rls/target/cellrate-rls.jar --config "$WORK/config" --grpc-port "$P" --http-port -1 --bind 127.0.0.1 >/dev/null & PIDS+=($!); RLS=$!
wait_port "$P"; load embedded-gcra "$P" "$RLS"; kill "$RLS"

unzip -p "$HOME/.m2/repository/com/github/codemonstur/embedded-redis/1.4.3/embedded-redis-1.4.3.jar" \
  redis-server-6.2.6-v5-linux-amd64 > "$WORK/redis-server"; chmod +x "$WORK/redis-server"
R=$(free_port); "$WORK/redis-server" --port "$R" --bind 127.0.0.1 --save "" --appendonly no --loglevel warning >/dev/null & PIDS+=($!); REDIS=$!
wait_port "$R"
P=$(free_port); java -jar rls/target/cellrate-rls.jar --config "$WORK/config" --grpc-port "$P" --http-port -1 --bind 127.0.0.1 --redis "redis://127.0.0.1:$R" >/dev/null & PIDS+=($!); RLS=$!
wait_port "$P"; load "redis(rls only)" "$P" "$RLS"
load "redis(rls+redis)" "$P" "$RLS,$REDIS"
kill "$RLS" "$REDIS"

# the gRPC call's request path without the transport (RlsService.answer on one thread): bytes allocated per request
# (exact, whatever the load) and mean ns per request
echo -n "request path alone            "
java $JAVA_FLAGS -cp "$CP" dev.cellrate.rls.RequestPathProbe 200000
