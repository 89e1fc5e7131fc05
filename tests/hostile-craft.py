#!/usr/bin/env python3
# hostile-craft.py KIND IN OUT - one field of a real trace's records changed, as issue 14's
# hostile user did: IN and OUT are record sequences (tests/fuzz/wct-records --to-records and
# --to-wct), in the layout of common/wct.h (man wcrec-trace.5).  A test aid of
# tests/hostile-resources.sh.
#   stack-id       the first STACK record's id set to 150000000
#   payload-id     the first PAYLOAD record's id set to 0x10000000
#   payload-event  a sched_switch TRACEPOINT naming a payload of another event
#   payload-again  the last PAYLOAD record's id set to 1 (an id defined again)
#   ncpus          the HOST record's ncpus_configured set to 10000000
#   ncpus-max      ... set to 0xffffffff
#   zstd-bomb      48 records of an unknown type, 1 MiB of zeros each, after the metadata
#   stack-bomb     4000 new callchains of 127 frames each (dense ids), at the end
import struct
import sys

HOST, STACK, TRACEPOINT, PAYLOAD = 1, 10, 11, 18


def records(data):
    pos = 0
    while pos + 8 <= len(data):
        size, typ, flags = struct.unpack_from('<IHH', data, pos)
        if size < 8:
            break
        yield pos, size, typ
        pos += size


def first(data, typ):
    return next(p for p, _, t in records(data) if t == typ)


def main():
    kind, src, dst = sys.argv[1:4]
    data = bytearray(open(src, 'rb').read())
    if kind == 'stack-id':
        struct.pack_into('<I', data, first(data, STACK) + 8, 150000000)
    elif kind == 'payload-id':
        struct.pack_into('<I', data, first(data, PAYLOAD) + 8, 0x10000000)
    elif kind == 'payload-again':
        payloads = [p for p, _, t in records(data) if t == PAYLOAD]
        if len(payloads) < 2:
            sys.exit('hostile-craft.py: fewer than two PAYLOAD records to define an id again')
        struct.pack_into('<I', data, payloads[-1] + 8, 1)
    elif kind == 'payload-event':
        events = {}  # payload id -> event id
        for p, _, t in records(data):
            if t == PAYLOAD:
                pid, ev = struct.unpack_from('<IH', data, p + 8)
                events[pid] = ev
        done = False
        for p, _, t in records(data):
            if t != TRACEPOINT:
                continue
            payload, = struct.unpack_from('<I', data, p + 16)
            ev, = struct.unpack_from('<H', data, p + 36)
            other = next((i for i, e in events.items() if e != ev and i < payload), None)
            if payload in events and other is not None:
                struct.pack_into('<I', data, p + 16, other)
                done = True
                break
        if not done:
            sys.exit('hostile-craft.py: no tracepoint to point at another event\'s payload')
    elif kind in ('ncpus', 'ncpus-max'):
        struct.pack_into('<I', data, first(data, HOST) + 12,
                         10000000 if kind == 'ncpus' else 0xffffffff)
    elif kind in ('zstd-bomb', 'stack-bomb'):
        at = first(data, TRACEPOINT)  # the metadata is before the first event
        if kind == 'zstd-bomb':
            extra = b''.join(struct.pack('<IHH', 1 << 20, 200, 0) + bytes((1 << 20) - 8)
                             for _ in range(48))
        else:
            top = max((struct.unpack_from('<I', data, p + 8)[0]
                       for p, _, t in records(data) if t == STACK), default=0)
            extra = b''.join(struct.pack('<IHHII', 16 + 127 * 8, STACK, 0, top + 1 + i, 127) +
                             struct.pack('<Q', top + 1 + i) + bytes(126 * 8)
                             for i in range(4000))
        at = at if kind == 'zstd-bomb' else len(data)
        data[at:at] = extra
    else:
        sys.exit('hostile-craft.py: no kind ' + kind)
    open(dst, 'wb').write(data)


main()
