#!/usr/bin/env python3
"""The attacker of the rollback races in `npm run test:confine`: swaps <dir> and <alt> atomically
(renameat2 RENAME_EXCHANGE, which Node cannot call), over and over, until <stopFile> exists. One of
the two is an empty directory, the other a symlink to <target>; whatever a rollback removes or
replaces is put back. A rollback that looks at <dir>, sees a directory and then opens it may open
<target> instead, with no moment in between where <dir> is missing.

    python3 dir-exchanger.py <dir> <alt> <target> <stopFile>
"""
import ctypes
import os
import stat
import sys

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_EXCHANGE = 2
d, alt, target, stop = sys.argv[1:5]


def kind(path):
    try:
        return stat.S_IFMT(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None


def repair():
    """One of the two is a directory, the other the link to <target>, whatever the rollback did."""
    for path in (d, alt):
        if kind(path) == stat.S_IFLNK and os.readlink(path) != target:
            try:
                os.unlink(path)
            except OSError:
                pass
    kd, ka = kind(d), kind(alt)
    if stat.S_IFDIR not in (kd, ka):
        try:
            os.mkdir(d if kd is None else alt if ka is None else d)
        except OSError:
            pass
    kd, ka = kind(d), kind(alt)
    if stat.S_IFLNK not in (kd, ka):
        try:
            os.symlink(target, alt if ka is None else d)
        except OSError:
            pass


bd, balt = d.encode(), alt.encode()
i = 0
while True:
    i += 1
    if i % 64 == 0 and os.path.exists(stop):
        break
    repair()
    for _ in range(20):
        libc.renameat2(AT_FDCWD, bd, AT_FDCWD, balt, RENAME_EXCHANGE)
