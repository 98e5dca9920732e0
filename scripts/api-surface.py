#!/usr/bin/env python3
"""Count the public API surface of an engine jar: public types, public methods (constructors apart), exported
packages. Usage: scripts/api-surface.py engine/target/cellrate-engine-*.jar [more jars...]

Reads the compiled classes with `javap -public` (nested types count as types; synthetic and bridge members
are not listed by javap). Exported packages come from module-info.class when the jar has one; without a
module descriptor every package with a public type is exported (the class path exports everything).
"""
import re
import subprocess
import sys
import zipfile


def surface(jar):
    with zipfile.ZipFile(jar) as z:
        names = [n for n in z.namelist() if n.endswith('.class') and n.startswith('dev/cellrate/')]
        has_module = 'module-info.class' in z.namelist()
    classes = [n[:-6].replace('/', '.') for n in names]
    out = subprocess.run(['javap', '-public', '-cp', jar] + classes, capture_output=True, text=True,
                         check=True).stdout
    types, methods, ctors, packages = 0, 0, 0, set()
    per_package = {}
    current = None
    for line in out.splitlines():
        m = re.match(r'^(public .*?)(class|interface|enum|@interface) ([\w.$]+)', line)
        if m:
            current = m.group(3)
            types += 1
            package = current.rsplit('.', 1)[0]
            packages.add(package)
            per_package.setdefault(package, [0, 0])[0] += 1
            continue
        if current is None or not line.startswith('  ') or '(' not in line:
            continue
        if 'static {}' in line:
            continue
        head = line.split('(')[0].split()
        name = head[-1]
        if name == current or name == current.split('.')[-1] or name.endswith('$' + current.split('$')[-1]):
            ctors += 1
        else:
            methods += 1
            per_package[current.rsplit('.', 1)[0]][1] += 1
    exported = packages
    if has_module:
        desc = subprocess.run(['jar', '--describe-module', '--file', jar], capture_output=True, text=True,
                              check=True).stdout
        exported = {l.split()[1] for l in desc.splitlines() if l.startswith('exports ')}
    exported_types = sum(per_package[p][0] for p in exported if p in per_package)
    exported_methods = sum(per_package[p][1] for p in exported if p in per_package)
    return types, methods, ctors, len(exported), len(packages), exported_types, exported_methods


if __name__ == '__main__':
    print('| jar | public types | public methods | public constructors | exported packages (of all) | '
          'types in exported packages | methods in exported packages |')
    print('|---|---|---|---|---|---|---|')
    for jar in sys.argv[1:]:
        t, m, c, e, p, et, em = surface(jar)
        print(f'| {jar} | {t} | {m} | {c} | {e} ({p}) | {et} | {em} |')
