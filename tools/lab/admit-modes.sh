#!/usr/bin/env bash
# The single cell's admit against its floor in many fresh JVMs, one line of facts per JVM (AdmitModeProbe):
# the ratio, both costs, the addresses mod 4096 of the cell and of what the loop touches, and where each loop's
# compiled code starts mod 64.
#
#   tools/lab/admit-modes.sh [JVMS] [-- JVM options...]     JVMS defaults to 16
#
# Knobs: ROUNDS=9 WARMUPS=3 FIRST=none (of AdmitModeProbe: none, shapeReject, reserve or both), CP (default tools/lab/target/lab.jar).
set -euo pipefail
cd "$(dirname "$0")/../.."
JVMS=${1:-16}
shift || true
[[ ${1:-} == -- ]] && shift
CP=${CP:-tools/lab/target/lab.jar}
for ((i = 1; i <= JVMS; i++)); do
    echo "$(cut -d' ' -f1 /proc/loadavg) $(java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED "$@" -cp "$CP" \
        dev.cellrate.bench.AdmitModeProbe "${ROUNDS:-9}" "${WARMUPS:-3}" "${FIRST:-none}")"
done
