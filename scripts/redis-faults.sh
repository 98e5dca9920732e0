#!/bin/sh
# The per-fault table of docs/distributed.md: each fault (kill -9 and restart, SCRIPT FLUSH, DEBUG SLEEP, CLIENT KILL,
# maxmemory with noeviction, FLUSHALL) injected into a real redis-server under each fail policy, with the answers
# during the fault, the recovery time and the over-admission (dev.cellrate.redis.FaultTable "$@" in redis's test tree).
#
#   scripts/redis-faults.sh [redis-server binary [FAULT...]]   default: /usr/bin/redis-server (apt-get install redis-server)
#   FAULT: KILL_9_AND_RESTART SCRIPT_FLUSH DEBUG_SLEEP CLIENT_KILL MAXMEMORY FLUSHALL (default: all)
#
# The binary is started on free loopback ports by the driver itself (with --enable-debug-command local on 7.x, which
# DEBUG SLEEP needs). Takes about two minutes.
set -eu
cd "$(dirname "$0")/.."
server="${1:-/usr/bin/redis-server}"
[ $# -gt 0 ] && shift
[ -x "$server" ] || { echo "no redis-server at $server (apt-get install redis-server, or pass a binary)" >&2; exit 2; }
cp_file="$PWD/redis/target/redis-faults.classpath"
mvn -B -q -pl redis -am -DskipTests -Djcstress.skip=true test-compile dependency:build-classpath \
    -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test
exec java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Dcellrate.redis.server="$server" \
    -cp "redis/target/test-classes:redis/target/classes:$(cat "$cp_file")" dev.cellrate.redis.FaultTable "$@"
