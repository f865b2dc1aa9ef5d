# SPDX-License-Identifier: MIT
"""Device memory functions, named as torch.cuda's / torch_npu.npu's.

Every figure comes from libnpurt: npurt_mem_get_stats() (the context's
caching allocator and the device's pool) and npurt_mem_foreach_stat()
(PyTorch's memory_stats() keys). @device is an index, "npu:N" or None (0).
"""

import ctypes

from . import _lib, _runtime
from ._lib import rt, check
from ._runtime import context


def _stats(device):
    _, ctx = context(device)
    s = _lib.MemStats()
    check(rt.npurt_mem_get_stats(ctx, ctypes.byref(s)))
    return s


def memory_allocated(device=None):
    """Bytes of device memory handed out by the caching allocator."""
    return _stats(device).allocated_bytes_current


def max_memory_allocated(device=None):
    """Peak of memory_allocated() since start or reset_peak_memory_stats()."""
    return _stats(device).allocated_bytes_peak


def memory_reserved(device=None):
    """Bytes the caching allocator holds from the device (used + cached)."""
    return _stats(device).reserved_bytes_current


def max_memory_reserved(device=None):
    """Peak of memory_reserved()."""
    return _stats(device).reserved_bytes_peak


def reset_peak_memory_stats(device=None):
    """Resets the peaks of the allocator's figures to the current values."""
    _, ctx = context(device)
    check(rt.npurt_mem_reset_peak_stats(ctx))


def empty_cache(device=None):
    """Returns cached, unused blocks to the device."""
    _, ctx = context(device)
    check(rt.npurt_mem_empty_cache(ctx))


def set_per_process_memory_fraction(fraction, device=None):
    """Caps what this process reserves at @fraction of the device memory."""
    _, ctx = context(device)
    check(rt.npurt_mem_set_fraction(ctx, float(fraction)))


def memory_stats(device=None):
    """A dict: PyTorch's memory_stats() keys from the caching allocator,
    the device's figures ("device.total", "device.used", ...), and
    "fragmentation": 1 - largest free block / free bytes of the device, the
    figure npu-smi reports as memory.fragmentation_ppm (parts per million
    there, a fraction here)."""
    _, ctx = context(device)
    out = {}

    def collect(_arg, key, value):
        out[key.decode()] = value
        return 0

    fn = _lib.STAT_FN(collect)
    check(rt.npurt_mem_foreach_stat(ctx, fn, None))
    s = _stats(device)
    free = s.device_total - s.device_used
    out.update({
        "num_allocs": s.num_allocs, "num_frees": s.num_frees,
        "model_bytes": s.model_bytes,
        "device.total": s.device_total, "device.used": s.device_used,
        "device.free": free,
        "device.largest_free": s.device_largest_free,
        "device.peak_used": s.device_peak_used,
        "device.compactions": s.device_compactions,
        "device.context_used": s.context_used,
        "fragmentation": (1.0 - s.device_largest_free / free) if free else 0.0,
    })
    return out


def _fmt(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return ("%d %s" % (n, unit)) if unit == "B" else \
                ("%.1f %s" % (n, unit))
        n /= 1024.0
    return str(n)


def memory_summary(device=None, abbreviated=False):
    """A printable table of memory_stats(), as torch.cuda.memory_summary()."""
    st = memory_stats(device)
    rows = [("Allocated memory", "allocated_bytes.all"),
            ("Reserved memory", "reserved_bytes.all"),
            ("Active memory", "active_bytes.all"),
            ("Inactive split memory", "inactive_split_bytes.all")]
    if not abbreviated:
        rows += [("  from large pool", "allocated_bytes.large_pool"),
                 ("  from small pool", "allocated_bytes.small_pool")]
    w = 75
    lines = ["=" * w,
             " NPU memory summary, device %s" % (device or 0),
             "-" * w,
             " %-28s %14s %14s %14s" % ("Metric", "Current", "Peak",
                                         "Tot. alloc")]
    for title, key in rows:
        if key + ".current" not in st:
            continue
        lines.append(" %-28s %14s %14s %14s" % (
            title, _fmt(st[key + ".current"]), _fmt(st[key + ".peak"]),
            _fmt(st.get(key + ".allocated", 0))))
    lines += ["-" * w,
              " Device: %s used of %s, largest free block %s, "
              "fragmentation %.2f%%" % (
                  _fmt(st["device.used"]), _fmt(st["device.total"]),
                  _fmt(st["device.largest_free"]),
                  100.0 * st["fragmentation"]),
              " Allocation retries: %d   OOMs: %d   Compactions: %d" % (
                  st.get("num_alloc_retries", 0), st.get("num_ooms", 0),
                  st["device.compactions"]),
              "=" * w]
    return "\n".join(lines) + "\n"


class Buffer:
    """A block of device memory from the context's caching allocator
    (npurt_mem_alloc): what memory_allocated() counts. Freed by free(),
    by `del` or at exit."""

    def __init__(self, nbytes, device=None):
        _, ctx = context(device)
        self._mem = ctypes.c_void_p()
        check(rt.npurt_mem_alloc(ctx, int(nbytes), ctypes.byref(self._mem)))
        self.nbytes = int(nbytes)

    def copy_from(self, array, offset=0):
        """Copies a numpy array's bytes to the device (host -> device)."""
        import numpy as np
        a = np.ascontiguousarray(array)
        check(rt.npurt_memcpy_h2d(self._mem, offset, a.ctypes.data,
                                  a.nbytes))

    def numpy(self, dtype="uint8", shape=None, offset=0):
        """Copies the bytes back into a new numpy array."""
        import numpy as np
        dt = np.dtype(dtype)
        if shape is None:
            shape = ((self.nbytes - offset) // dt.itemsize,)
        out = np.empty(shape, dtype=dt)
        check(rt.npurt_memcpy_d2h(out.ctypes.data, self._mem, offset,
                                  out.nbytes))
        return out

    def free(self):
        if self._mem:
            if not _runtime.closed:
                rt.npurt_mem_free(self._mem)
            self._mem = None

    def __del__(self):
        try:
            self.free()
        except Exception:  # noqa: BLE001 - interpreter teardown
            pass
