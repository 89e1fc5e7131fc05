#!/usr/bin/env python3
# perf-unleak.py IN OUT - a copy of a perf.data file (native byte order, not pipe mode) in which
# no MMAP2 record claims a build-id.  While a session that asked for build-ids in its MMAP2
# records (attr.build_id, as wcrec) runs, this kernel marks other sessions' MMAP2 records with
# PERF_RECORD_MISC_MMAP_BUILD_ID too, though they hold maj/min/ino as their session asked;
# perf 6.1 then reads the device numbers as a build-id size and aborts (util/build-id.c).
# A test aid for the side-by-side tests: perf did not ask for build-ids (perf record -B), so
# the flag is cleared.  Prints "cleared N" (N records); exit 1 if IN is not a perf.data file.
import struct
import sys

PERF_RECORD_MMAP2 = 10
MISC_MMAP_BUILD_ID = 1 << 14

data = bytearray(open(sys.argv[1], 'rb').read())
if data[:8] != b'PERFILE2':
    sys.exit('perf-unleak.py: %s: not a perf.data file' % sys.argv[1])
# header: magic, size, attr_size, attrs {offset, size}, data {offset, size}, ...
off, size = struct.unpack_from('<QQ', data, 40)
pos, end, cleared = off, off + size, 0
while pos + 8 <= end:
    rtype, misc, rsize = struct.unpack_from('<IHH', data, pos)
    if rsize < 8:
        sys.exit('perf-unleak.py: %s: bad record at byte %d' % (sys.argv[1], pos))
    if rtype == PERF_RECORD_MMAP2 and misc & MISC_MMAP_BUILD_ID:
        struct.pack_into('<H', data, pos + 4, misc & ~MISC_MMAP_BUILD_ID)
        cleared += 1
    pos += rsize
open(sys.argv[2], 'wb').write(data)
print('cleared', cleared)
