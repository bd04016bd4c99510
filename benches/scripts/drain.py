"""drain.py: read standard input to its end and do nothing else, for throughput.sh.

Usage: cat FILE | python3 benches/scripts/drain.py

It asks for the same 1 MiB pipe buffer condense asks for (F_SETPIPE_SZ, ignored when refused)
and reads 8 MiB at a time into one buffer, so its time is what the pipe itself costs: cat
copying the file into the pipe and the reader copying it out. `cat FILE | condense estimate`
cannot beat it. Prints the number of bytes read.
"""

import fcntl
import os
import sys

F_SETPIPE_SZ = 1031  # Linux's fcntl command number; Python's fcntl module names it from 3.10
PIPE_SIZE = 1 << 20
READ_SIZE = 8 << 20


def main():
    try:
        fcntl.fcntl(0, F_SETPIPE_SZ, PIPE_SIZE)
    except OSError:
        pass  # not a pipe, or refused: the reading is the same, only slower
    buffer = memoryview(bytearray(READ_SIZE))
    total = 0
    while True:
        read = os.readv(0, [buffer])
        if read == 0:
            break
        total += read
    print(total)


main()
