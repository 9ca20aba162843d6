#!/usr/bin/env python3
"""The attacker of the snapshot read race: <a> and <b> are a directory and a symlink to a folder the
snapshot must never read; this exchanges them atomically (renameat2 RENAME_EXCHANGE) over and over,
and before each exchange writes a new <file> into the directory through its descriptor, so every
snapshot sees that file changed and reads it again. Prints "ready" once it is about to start, and
how many files it wrote when it stops, which is when <stopFile> exists.

    python3 swap-and-write.py <a> <b> <file> <stopFile>
"""
import ctypes
import os
import stat
import sys

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_EXCHANGE = 2
a, b, name, stop = sys.argv[1:5]
directory = a if stat.S_ISDIR(os.lstat(a).st_mode) else b
dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
count = 0
print("ready", flush=True)
while not os.path.exists(stop):
    count += 1
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=dir_fd)
    os.write(fd, f"innocent {count}\n".encode())
    os.close(fd)
    for _ in range(20):
        libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE)
print(count)
