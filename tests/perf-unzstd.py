#!/usr/bin/python3
# perf-unzstd.py IN OUT - a perf.data of `perf record -z` rewritten uncompressed, for
# tests/perfdata.sh's check that wcanalyze gives the same outputs on both: each COMPRESSED
# (type 81) or COMPRESSED2 (83) record is replaced, in place, by what the one zstd stream
# gives for it (records may straddle two: the bytes go out as they come, which keeps the
# file's record sequence; libzstd through ctypes decompresses), the data size and the feature
# sections' offsets moved to match.  File mode only, this host's byte order.
import ctypes
import struct
import sys


class Buf(ctypes.Structure):
    _fields_ = [('p', ctypes.c_void_p), ('size', ctypes.c_size_t), ('pos', ctypes.c_size_t)]


class Stream:
    def __init__(self):
        self.z = ctypes.CDLL('libzstd.so.1')
        self.z.ZSTD_createDStream.restype = ctypes.c_void_p
        self.z.ZSTD_decompressStream.restype = ctypes.c_size_t
        self.z.ZSTD_decompressStream.argtypes = [ctypes.c_void_p, ctypes.POINTER(Buf),
                                                 ctypes.POINTER(Buf)]
        self.z.ZSTD_isError.argtypes = [ctypes.c_size_t]
        self.d = self.z.ZSTD_createDStream()
        self.z.ZSTD_initDStream(ctypes.c_void_p(self.d))

    def feed(self, data):
        src = ctypes.create_string_buffer(bytes(data), len(data))
        dst = ctypes.create_string_buffer(1 << 20)
        inb = Buf(ctypes.cast(src, ctypes.c_void_p), len(data), 0)
        got = bytearray()
        while True:
            outb = Buf(ctypes.cast(dst, ctypes.c_void_p), 1 << 20, 0)
            r = self.z.ZSTD_decompressStream(self.d, ctypes.byref(outb), ctypes.byref(inb))
            if self.z.ZSTD_isError(r):
                raise SystemExit('zstd error')
            got += dst.raw[:outb.pos]
            if inb.pos == inb.size and outb.pos < outb.size:
                return got


def main(src, dst):
    b = open(src, 'rb').read()
    hsize, = struct.unpack_from('<Q', b, 8)
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    feats = struct.unpack_from('<4Q', b, 72)
    out, z = bytearray(), Stream()
    at, end = data_off, data_off + data_size
    while at < end:
        typ, misc, size = struct.unpack_from('<IHH', b, at)
        if typ in (81, 83):
            first = 16 if typ == 83 else 8
            n = struct.unpack_from('<Q', b, at + 8)[0] if typ == 83 else size - 8
            out += z.feed(b[at + first:at + first + n])
        else:
            out += b[at:at + size]
        at += size
    nfeat = sum(bin(f).count('1') for f in feats)
    table = bytearray(b[end:end + 16 * nfeat])
    shift = len(out) - data_size
    for i in range(nfeat):
        off, = struct.unpack_from('<Q', table, 16 * i)
        struct.pack_into('<Q', table, 16 * i, off + shift)
    head = bytearray(b[:data_off])
    struct.pack_into('<Q', head, 48, len(out))
    feat_data = b[end + 16 * nfeat:]
    open(dst, 'wb').write(bytes(head) + bytes(out) + bytes(table) + feat_data)
    return 0 if hsize == 104 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
