#!/usr/bin/env bash
# Before/after JMH of the API change, in one run: the two benchmark jars alternate (before, after, before,
# after, ...) on the same machine, so both see the same load. Usage:
#   scripts/jmh-before-after.sh BEFORE.jar AFTER.jar ROUNDS OUTDIR
# Other JMH runs may hold /tmp/jmh.lock on a shared machine: the lock is ignored, so say the numbers were
# taken under load and read the ratios.
# Benchmarks: admit on one thread, reject on one thread (caller time), keyed 1 M uniform long keys.
set -euo pipefail
before="$1"; after="$2"; rounds="${3:-2}"; out="${4:-/tmp/jmh-before-after}"
mkdir -p "$out"
pattern='AdmitOneThreadBenchmark.cellrateCallerTime$|RejectOneThreadBenchmark.cellrateCallerTime$|KeyedBenchmark.longKey$'
for round in $(seq 1 "$rounds"); do
  for side in before after; do
    jar="$before"; [ "$side" = after ] && jar="$after"
    java -Djmh.ignoreLock=true -jar "$jar" "$pattern" -p target=cellrate -p keys=1000000 -p distribution=uniform \
      -f 1 -wi 2 -i 3 -w 1s -r 1s -rf json -rff "$out/$side-$round.json" > "$out/$side-$round.log" 2>&1
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for side in ('before', 'after'):
    for r in range(1, rounds + 1):
        for b in json.load(open(f'{out}/{side}-{r}.json')):
            name = b['benchmark'].split('.')[-2] + '.' + b['benchmark'].split('.')[-1]
            rows.setdefault(name, {}).setdefault(side, []).append(b['primaryMetric']['score'])
print('| benchmark (ops/us) | before: median [runs] | after: median [runs] | after/before |')
print('|---|---|---|---|')
for name, s in sorted(rows.items()):
    b, a = statistics.median(s['before']), statistics.median(s['after'])
    fmt = lambda xs: ', '.join(f'{x:.1f}' for x in xs)
    print(f'| {name} | {b:.1f} [{fmt(s["before"])}] | {a:.1f} [{fmt(s["after"])}] | {a / b:.2f} |')
PY
