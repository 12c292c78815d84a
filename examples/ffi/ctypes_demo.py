#!/usr/bin/env python3
"""ctypes_demo.py - profile a small multi-threaded Python program through tracyc's flat
FFI API (bindings/ffi/tracyc_ffi.h) with nothing but the standard library's ctypes.

    TRACYC_OUTPUT=demo.json python3 ctypes_demo.py path/to/libtracyc.so

writes a Chrome/Perfetto trace at exit; without TRACYC_OUTPUT, connect the Tracy
profiler instead (and set TRACY_NO_EXIT=1 so the program waits for it).
"""
import ctypes
import ctypes.util
import sys
import threading

from ctypes import c_char_p, c_double, c_int64, c_size_t, c_uint32, c_uint64

# name: (return type, parameter types), as in bindings/ffi/tracyc.abi.json
SIGNATURES = {
    "tracyc_ffi_srcloc_register": (c_uint32, [c_char_p, c_size_t, c_char_p, c_size_t, c_char_p, c_size_t,
                                              c_uint32, c_uint32]),
    "tracyc_ffi_name_register": (c_uint32, [c_char_p, c_size_t]),
    "tracyc_ffi_zone_begin": (c_uint64, [c_uint32]),
    "tracyc_ffi_zone_end": (None, [c_uint64]),
    "tracyc_ffi_zone_text": (None, [c_uint64, c_char_p, c_size_t]),
    "tracyc_ffi_zone_value": (None, [c_uint64, c_uint64]),
    "tracyc_ffi_thread_name": (None, [c_char_p, c_size_t]),
    "tracyc_ffi_message": (None, [c_char_p, c_size_t, c_uint32]),
    "tracyc_ffi_plot": (None, [c_uint32, c_double]),
    "tracyc_ffi_plot_int": (None, [c_uint32, c_int64]),
    "tracyc_ffi_frame_mark": (None, [c_uint32]),
}


class Tracy:
    """A thin Pythonic layer: strings become (bytes, length) pairs, ids are ints."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        for name, (restype, argtypes) in SIGNATURES.items():
            fn = getattr(self.lib, name)
            fn.restype, fn.argtypes = restype, argtypes

    def srcloc(self, name, function, file, line, color=0):
        args = [s.encode() for s in (name, function, file)]
        return self.lib.tracyc_ffi_srcloc_register(args[0], len(args[0]), args[1], len(args[1]),
                                                   args[2], len(args[2]), line, color)

    def name(self, text):
        data = text.encode()
        return self.lib.tracyc_ffi_name_register(data, len(data))

    def thread_name(self, text):
        data = text.encode()
        self.lib.tracyc_ffi_thread_name(data, len(data))

    def message(self, text, color=0):
        data = text.encode()
        self.lib.tracyc_ffi_message(data, len(data), color)

    def zone(self, srcloc_id):
        return Zone(self.lib, srcloc_id)


class Zone:
    """with tracy.zone(id) as z: ... begins and ends a zone on the current thread."""

    def __init__(self, lib, srcloc_id):
        self.lib, self.srcloc_id, self.handle = lib, srcloc_id, 0

    def __enter__(self):
        self.handle = self.lib.tracyc_ffi_zone_begin(self.srcloc_id)
        return self

    def __exit__(self, *exc):
        self.lib.tracyc_ffi_zone_end(self.handle)

    def text(self, text):
        data = text.encode()
        self.lib.tracyc_ffi_zone_text(self.handle, data, len(data))

    def value(self, value):
        self.lib.tracyc_ffi_zone_value(self.handle, value)


THREADS, ITEMS = 3, 50


def worker(tracy, index, work_loc, progress):
    tracy.thread_name("ctypes worker %d" % index)
    for item in range(ITEMS):
        with tracy.zone(work_loc) as zone:
            zone.text("item %d" % item)
            zone.value(sum(i * i for i in range(2000)))
        tracy.lib.tracyc_ffi_plot_int(progress, item)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else ctypes.util.find_library("tracyc") or "libtracyc.so"
    tracy = Tracy(path)
    work_loc = tracy.srcloc("ctypes work", "worker", __file__, 70, 0x2a9d8f)
    main_loc = tracy.srcloc("ctypes main", "main", __file__, 90)
    progress = tracy.name("ctypes progress")
    tracy.thread_name("ctypes main")
    with tracy.zone(main_loc):
        threads = [threading.Thread(target=worker, args=(tracy, i, work_loc, progress)) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        tracy.message("ctypes demo done")
    tracy.lib.tracyc_ffi_frame_mark(0)


if __name__ == "__main__":
    main()
