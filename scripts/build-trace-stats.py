#!/usr/bin/env python3
# build-trace-stats.py TRACE [N] - the file-opening behaviour of a build, from
#   strace -f -ttt -e trace=openat,open,close,execve,exit_group -o TRACE make -jN TARGET
# Prints per program (by the file it exec'd): processes, open attempts per
# process, the share that failed, and .so/locale opens per process (files a
# process keeps through its mappings); over all: open attempts, failures,
# open-to-close hold times, and per compile unit (one cc1, or one ccache
# invocation with a warm cache); with N (the make -j of the trace), the
# processes alive at once per job slot (process lifetimes, first event to
# last, of everything but make, over the trace's span, divided by N) and the
# compile unit's run time (cc1's or ccache's lifetime: mean, median, and the
# lognormal sigma = sqrt(2 ln(mean / median))). These are the sources of the
# workload.make_* defaults (rcusim params).
#
# How the defaults were measured (Debian 12, linux-source-6.1, gcc 12, 2 CPUs):
#   tar xf /usr/src/linux-source-6.1.tar.xz; cd linux-source-6.1
#   make defconfig; make -j2 prepare
#   strace ... -o trace-plain.txt make -j2 fs/
#   (ccache: make CC="ccache gcc" fs/ once to fill the cache, delete the
#    objects, then trace the same command again: trace-ccache-warm.txt)
#   CPU per compile unit: delete the objects, /usr/bin/time make -j1 fs/,
#   (user + system) / 323 units (the trace's cc1 processes); with a warm
#   ccache, /usr/bin/time make -j1 CC="ccache gcc" fs/: 9.21 s user + 7.89 s
#   system / 313 units (the trace's ccache processes).
import collections
import math
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


def main(path, slots):
    exe = {}
    first, last = {}, {}
    mapped_pid = collections.Counter()
    opens = collections.Counter()
    fails = collections.Counter()
    mapped = collections.Counter()
    opened_at = {}
    holds = []
    for pid, t, call, args, ret in records(path):
        first.setdefault(pid, t)
        last[pid] = t
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
                    mapped_pid[pid] += 1
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
    if slots and first:
        span = max(last.values()) - min(first.values())
        alive = sum(last[p] - first[p] for p in first if exe.get(p) != 'make')
        held = sum((last[p] - first[p]) * mapped_pid[p] for p in first if exe.get(p) != 'make')
        print(f'processes alive per job slot: {alive / span / slots:.2f} '
              f'({alive:.0f} process-seconds over {span:.1f} s, -j{slots}), holding '
              f'{held / alive:.1f} .so+locale files each on average (lifetime-weighted)')
        unit = 'cc1' if units == procs.get('cc1', 0) else 'ccache'
        life = sorted(last[p] - first[p] for p in first if exe.get(p) == unit)
        if life:
            mean, med = sum(life) / len(life), life[len(life) // 2]
            sigma = math.sqrt(2 * math.log(mean / med)) if mean > med > 0 else 0.0
            print(f'{unit} run time: mean {mean * 1e3:.1f} ms  median {med * 1e3:.1f} ms  '
                  f'lognormal sigma {sigma:.3f}')
    if holds:
        holds.sort()
        n = len(holds)
        print(f'hold times ({n} files): median {holds[n // 2] * 1e6:.0f} us  mean {sum(holds) / n * 1e3:.2f} ms  '
              f'p90 {holds[int(n * 0.9)] * 1e3:.2f} ms  p99 {holds[int(n * 0.99)] * 1e3:.1f} ms')


if __name__ == '__main__':
    if len(sys.argv) not in (2, 3):
        sys.exit('usage: build-trace-stats.py STRACE_OUTPUT [MAKE_JOBS]')
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 0)
