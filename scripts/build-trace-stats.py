#!/usr/bin/env python3
# build-trace-stats.py TRACE - the file-opening behaviour of a build, from
#   strace -f -ttt -e trace=openat,open,close,execve,exit_group -o TRACE make -jN TARGET
# Prints per program (by the file it exec'd): processes, open attempts per
# process, the share that failed, and .so/locale opens per process (files a
# process keeps through its mappings); over all: open attempts, failures,
# open-to-close hold times, and per compile unit (one cc1, or one ccache
# invocation with a warm cache). These are the sources of the workload.make_*
# defaults (rcusim params).
#
# How the defaults were measured (Debian 12, linux-source-6.1, gcc 12, 2 CPUs):
#   tar xf /usr/src/linux-source-6.1.tar.xz; cd linux-source-6.1
#   make defconfig; make -j2 prepare
#   strace ... -o trace-plain.txt make -j2 fs/
#   (ccache: make CC="ccache gcc" fs/ once to fill the cache, delete the
#    objects, then trace the same command again: trace-ccache-warm.txt)
#   CPU per compile unit: delete the objects, /usr/bin/time make -j1 fs/,
#   (user + system) / 323 units.
import collections
import re
import sys

CALL = re.compile(r'^(\d+)\s+([\d.]+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)')
UNFINISHED = re.compile(r'^(\d+)\s+([\d.]+)\s+(\w+)\((.*) <unfinished')
RESUMED = re.compile(r'^(\d+)\s+([\d.]+)\s+<\.\.\. (\w+) resumed>.*=\s+(-?\d+)')


def records(path):
    pending = {}
    with open(path, errors='replace') as f:
        for line in f:
            m = CALL.match(line)
            if m:
                yield m.group(1), float(m.group(2)), m.group(3), m.group(4), int(m.group(5))
                continue
            m = UNFINISHED.match(line)
            if m:
                pending[m.group(1)] = (m.group(3), m.group(4))
                continue
            m = RESUMED.match(line)
            if m and m.group(1) in pending:
                call, args = pending.pop(m.group(1))
                yield m.group(1), float(m.group(2)), call, args, int(m.group(4))


def main(path):
    exe = {}
    opens = collections.Counter()
    fails = collections.Counter()
    mapped = collections.Counter()
    opened_at = {}
    holds = []
    for pid, t, call, args, ret in records(path):
        if call == 'execve' and ret == 0:
            exe[pid] = args.split(',')[0].strip('"').split('/')[-1]
        elif call in ('openat', 'open'):
            prog = exe.get(pid, '?')
            opens[prog] += 1
            names = re.findall(r'"([^"]*)"', args)
            name = names[0] if names else ''
            if ret < 0:
                fails[prog] += 1
            else:
                opened_at[(pid, ret)] = t
                if name.endswith('.so') or '.so.' in name or 'locale' in name:
                    mapped[prog] += 1
        elif call == 'close' and ret == 0:
            fd = args.split(',')[0].strip()
            key = (pid, int(fd)) if fd.isdigit() else None
            if key in opened_at:
                holds.append(t - opened_at.pop(key))
    procs = collections.Counter(exe.values())
    for prog, n in procs.most_common(12):
        print(f'{prog:10s} processes {n:6d}  opens/process {opens[prog] / n:8.1f}  '
              f'failed {fails[prog] / max(opens[prog], 1):.3f}  .so+locale/process {mapped[prog] / n:.1f}')
    total, failed = sum(opens.values()), sum(fails.values())
    units = procs.get('cc1', 0) if procs.get('cc1', 0) > procs.get('ccache', 0) / 2 else procs.get('ccache', 0)
    print(f'opens {total}  failed {failed} ({failed / max(total, 1):.3f})  processes {len(exe)}  '
          f'compile units {units}')
    if units:
        print(f'per compile unit: opens {total / units:.0f}  processes {len(exe) / units:.1f}')
    if holds:
        holds.sort()
        n = len(holds)
        print(f'hold times ({n} files): median {holds[n // 2] * 1e6:.0f} us  mean {sum(holds) / n * 1e3:.2f} ms  '
              f'p90 {holds[int(n * 0.9)] * 1e3:.2f} ms  p99 {holds[int(n * 0.99)] * 1e3:.1f} ms')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: build-trace-stats.py STRACE_OUTPUT')
    main(sys.argv[1])
