#!/usr/bin/env bash
# Before and after in one JVM, in CPU time: the keyed rows (long and string keys, the batch of 32 and its
# one-call-per-key row) of two or more git revisions' engines, alternated within every round (RevisionsCpuTime).
# Quicker and steadier on a crowded machine than jmh/ab.sh, which runs each side's JMH forks apart.
#
#   tools/lab/ab-cpu.sh OLD_REV [NEW_REV ...]       NEW_REV defaults to the working tree's engine (built now)
#
# Each revision's engine is compiled in a temporary worktree under /tmp (mvn -pl engine compile: nothing is
# installed into ~/.m2) and its classes kept by commit in CLASS_CACHE. The working tree's engine is compiled in
# place. Knobs: ROUNDS=9, KEYS=1000000, KINDS=string,batch (of long, string, batch, single, admit,
# shape, shapeHolder, shapeReject, reserve, reserveAny),
# CLASS_CACHE=/tmp/cellrate-ab-classes, JAVA_OPTS=-Xmx3g.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
ROUNDS=${ROUNDS:-9}
KEYS=${KEYS:-1000000}
KINDS=${KINDS:-string,batch}
CLASS_CACHE=${CLASS_CACHE:-/tmp/cellrate-ab-classes}
M2=${M2:-$HOME/.m2/repository}
DEPS=$M2/org/agrona/agrona/2.6.0/agrona-2.6.0.jar:$M2/org/jctools/jctools-core/4.0.5/jctools-core-4.0.5.jar
mkdir -p "$CLASS_CACHE"

classes_of() {
    local rev dir tree
    rev=$(git rev-parse --verify "$1^{commit}")
    dir=$CLASS_CACHE/$rev
    if [[ ! -d $dir ]]; then
        tree=$(mktemp -d /tmp/cellrate-ab-tree.XXXXXX)
        git worktree add -q --detach "$tree" "$rev" >&2
        echo "compiling the engine of $rev" >&2
        if ! (cd "$tree" && mvn -B -q -o -Dstyle.color=never -pl engine -Dmaven.test.skip=true compile >&2); then
            git worktree remove --force "$tree"
            echo "build of $rev failed" >&2
            return 1
        fi
        cp -r "$tree/engine/target/classes" "$dir.tmp" && mv "$dir.tmp" "$dir"
        git worktree remove --force "$tree"
    fi
    echo "$dir"
}

[[ -f tools/lab/target/cellrate-lab-0.1.0-SNAPSHOT.jar ]] || mvn -B -q -o -pl tools/lab -am -DskipTests package
specs=("$(git rev-parse --short "$1")=$(classes_of "$1"):$DEPS")
shift
if [[ $# -eq 0 ]]; then
    mvn -B -q -o -pl engine -Dmaven.test.skip=true compile
    rm -rf "$CLASS_CACHE/worktree" && cp -r engine/target/classes "$CLASS_CACHE/worktree"
    specs+=("worktree=$CLASS_CACHE/worktree:$DEPS")
fi
for rev in "$@"; do
    specs+=("$(git rev-parse --short "$rev")=$(classes_of "$rev"):$DEPS")
done
echo "load before: $(uptime)"
java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED ${JAVA_OPTS:--Xmx3g} \
    -cp tools/lab/target/cellrate-lab-0.1.0-SNAPSHOT.jar dev.cellrate.bench.RevisionsCpuTime \
    "$ROUNDS" "$KEYS" "$KINDS" "${specs[@]}"
echo "load after: $(uptime)"
