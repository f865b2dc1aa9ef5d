# SPDX-License-Identifier: MIT
"""One runtime context per device and process, shared by every session.

As torch.cuda's caching allocator is per device and process, the memory
functions of this package report the context every InferenceSession and
npu.compile() callable of that device uses.
"""

import atexit
import ctypes
import threading
import weakref

from . import _lib
from ._lib import rt, check

_lock = threading.Lock()
_initialised = False
_devices = {}  # index -> (device handle, context handle)


def _init():
    global _initialised
    if not _initialised:
        check(rt.npurt_init(0))
        _initialised = True


def device_count():
    """Number of NPU devices (the in-process device when no node exists)."""
    with _lock:
        _init()
        n = ctypes.c_uint32()
        check(rt.npurt_device_count(ctypes.byref(n)))
        return n.value


def _index(device):
    if device is None:
        return 0
    if isinstance(device, str):
        # "npu", "npu:1"
        name, _, idx = device.partition(":")
        if name != "npu":
            raise ValueError("device %r: expected 'npu' or 'npu:N'" % device)
        return int(idx or 0)
    return int(device)


def context(device=None):
    """The (device, context) handles of device index @device."""
    idx = _index(device)
    with _lock:
        if idx in _devices:
            return _devices[idx]
        _init()
        dev = ctypes.c_void_p()
        check(rt.npurt_device_open(idx, ctypes.byref(dev)))
        ctx = ctypes.c_void_p()
        st = rt.npurt_context_create(dev, 0, ctypes.byref(ctx))
        if st:
            rt.npurt_device_close(dev)
            check(st)
        _devices[idx] = (dev, ctx)
        return dev, ctx


def device_info(device=None):
    """The device's description as a dict (npurt_device_info)."""
    dev, _ = context(device)
    info = _lib.DeviceInfo()
    check(rt.npurt_device_get_info(dev, ctypes.byref(info)))
    return {
        "name": info.name.decode(), "is_kernel": bool(info.is_kernel),
        "model": info.model, "uapi_version": info.uapi_version,
        "features": info.features, "num_cores": info.num_cores,
        "num_queues": info.num_queues,
        "num_semaphores": info.num_semaphores,
        "vram_size": info.vram_size, "numa_node": info.numa_node,
    }


def synchronize(device=None):
    """Waits for all work of the device's context."""
    _, ctx = context(device)
    check(rt.npurt_context_synchronize(ctx))


# Live sessions unload their models first, then the contexts go.
sessions = weakref.WeakSet()


# Set once the contexts are gone: device memory still referenced by
# Python objects then goes with them (freeing it would touch a destroyed
# context).
closed = False


@atexit.register
def _shutdown():
    global closed
    for s in list(sessions):
        try:
            s.close()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass
    with _lock:
        closed = True
        for dev, ctx in _devices.values():
            rt.npurt_context_destroy(ctx)
            rt.npurt_device_close(dev)
        _devices.clear()
