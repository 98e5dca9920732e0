#!/usr/bin/env python3
"""Disassemble the hex [MachCode] of the LAST C2 nmethod in a HotSpot -XX:+PrintAssembly log with objdump,
interleaving HotSpot's comments (scopes, implicit exceptions) at their addresses.

Why: Debian's libhsdis0-fcml (1.2.2) exports only `decode_instructions`, while JDK 17 looks up
`decode_instructions_virtual`, so PrintAssembly prints the code as hex words. objdump (binutils) reads them.

Usage: python3 tools/lab/hexdis.py LOG [substring of the nmethod's header line, e.g. the method name or " 656 %"]
Make LOG with, e.g.:
  java -jar jmh/target/benchmarks.jar 'KeyedBenchmark.longKey$' -p keys=1000 -p distribution=uniform \
    -p target=cellrate -f 1 -wi 5 -w 1s -i 4 -r 1s -jvmArgsAppend "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED \
    -XX:+UnlockDiagnosticVMOptions -XX:CompileCommand=print,*KeyedBenchmark_longKey_jmhTest::longKey_thrpt_jmhStub" > LOG
"""
import re, subprocess, sys, tempfile
log = open(sys.argv[1]).read().split("\n")
want = sys.argv[2] if len(sys.argv) > 2 else ""
starts = [i for i, l in enumerate(log) if l.startswith("Compiled method (c2)") and want in l]
i = starts[-1]
code = {}
comments = {}
cur = None
j = i + 1
while j < len(log) and not log[j].startswith("Compiled method") and not log[j].startswith("[Stub Code]"):
    l = log[j]
    m = re.match(r"\s+0x([0-9a-f]+): (.*)", l)
    if m:
        addr = int(m.group(1), 16); rest = m.group(2)
        if rest.startswith(";"):
            comments.setdefault(addr, []).append(rest.strip())
            cur = addr
        else:
            hexs = rest.replace("|", "").split()
            bs = bytes.fromhex("".join(hexs))
            for k, b in enumerate(bs):
                code[addr + k] = b
            cur = None
    elif cur is not None and l.strip().startswith(";"):
        comments[cur].append(l.strip())
    j += 1
base = min(code); end = max(code) + 1
buf = bytes(code.get(a, 0x90) for a in range(base, end))
with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
    f.write(buf)
out = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "-M", "intel", "--adjust-vma=0x%x" % base, f.name],
                     capture_output=True, text=True).stdout
print(log[i])
for line in out.split("\n"):
    m = re.match(r"\s*([0-9a-f]+):\t", line)
    if m:
        a = int(m.group(1), 16)
        for c in comments.get(a, []):
            if "ImmutableOopMap" in c:
                continue
            print("        " + c)
        parts = line.split("\t")
        print("  %x: %s" % (a, parts[-1] if len(parts) > 2 else ""))
