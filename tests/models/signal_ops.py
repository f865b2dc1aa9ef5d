#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: DFT, STFT and MelWeightMatrix (opset 17).

npuc compiles DFT and STFT into MatMuls with constant cosine and sine
matrices and MelWeightMatrix into a constant (compiler/shape/
legalize_dft.c). Each case is a small ONNX graph built with onnx.helper,
compiled at -O0 and at the default level, run on the in-process device and
compared with numpy's FFT in float64 (max|out - ref| / max|ref| <= 1e-5);
the refusals (a length known only at run time, a one-sided inverse, a
transform too long for a matrix) must exit 1 with their message.

Usage: signal_ops.py [-k REGEX] [--keep DIR]
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compiler_regress as cr  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64
vi, init, model = cr.vi, cr.init, cr.model


def pair(z):
    return np.stack([z.real, z.imag], -1)


def dft_case(rng, shape, axis, complex_in=False, inverse=False,
             onesided=False, length=None):
    x = rng.standard_normal(shape + (2 if complex_in else 1,))
    x = x.astype(np.float32)
    z = x[..., 0] + (1j * x[..., 1] if complex_in else 0)
    z = z.astype(np.complex128)
    onnx_axis = axis
    axis = axis + x.ndim if axis < 0 else axis     # of x, complex dim last
    n = z.shape[axis]
    if length is not None:
        z = np.take(z, range(min(n, length)), axis=axis)
        if length > n:
            pad = [(0, 0)] * z.ndim
            pad[axis] = (0, length - n)
            z = np.pad(z, pad)
    ref = np.fft.ifft(z, axis=axis) if inverse else np.fft.fft(z, axis=axis)
    if onesided:
        ref = np.take(ref, range(z.shape[axis] // 2 + 1), axis=axis)
    ins = ["x", "len"] if length is not None else ["x"]
    node = helper.make_node("DFT", ins, ["y"], axis=onnx_axis,
                            inverse=int(inverse), onesided=int(onesided))
    inits = [init("len", np.array(length, np.int64))] \
        if length is not None else []
    m = model([node], [vi("x", list(x.shape))], [vi("y", None)], inits)
    return m, {"x": x}, [pair(ref)]


def case_dft_real_axis1(rng):
    return dft_case(rng, (2, 12, 3), 1)


def case_dft_real_last_onesided(rng):
    return dft_case(rng, (3, 16), 1, onesided=True)


def case_dft_complex_inverse(rng):
    return dft_case(rng, (2, 5, 7), 2, complex_in=True, inverse=True)


def case_dft_complex_axis_neg(rng):
    return dft_case(rng, (2, 9, 4), -3, complex_in=True)


def case_dft_pad_length(rng):
    return dft_case(rng, (1, 6, 2), 1, length=10)


def case_dft_cut_length(rng):
    return dft_case(rng, (2, 20), 1, length=8, onesided=True)


def stft_ref(sig, step, win, length, onesided):
    frames = (sig.shape[1] - length) // step + 1
    out = []
    for f in range(frames):
        fr = sig[:, f * step:f * step + length] * \
            (win if win is not None else 1.0)
        out.append(np.fft.fft(fr, axis=-1))
    ref = np.stack(out, 1)
    if onesided:
        ref = ref[..., :length // 2 + 1]
    return pair(ref)


def case_stft_window(rng):
    sig = rng.standard_normal((2, 64, 1)).astype(np.float32)
    win = np.hanning(16).astype(np.float32)
    node = helper.make_node("STFT", ["s", "step", "w"], ["y"])
    m = model([node], [vi("s", [2, 64, 1]), vi("w", [16])], [vi("y", None)],
              [init("step", np.array(6, np.int64))])
    ref = stft_ref(sig[..., 0].astype(np.float64), 6, win, 16, True)
    return m, {"s": sig, "w": win}, [ref]


def case_stft_complex_twosided(rng):
    sig = rng.standard_normal((1, 40, 2)).astype(np.float32)
    node = helper.make_node("STFT", ["s", "step", "", "len"], ["y"],
                            onesided=0)
    m = model([node], [vi("s", [1, 40, 2])], [vi("y", None)],
              [init("step", np.array(5, np.int64)),
               init("len", np.array(12, np.int64))])
    z = sig[..., 0].astype(np.float64) + 1j * sig[..., 1]
    return m, {"s": sig}, [stft_ref(z, 5, None, 12, False)]


def mel_ref(mel, dft, rate, lo, hi):
    """The formula of ONNX's node test, as the difftest reference has it
    (tests/difftest/dt_ref.py)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "difftest"))
    import dt_ref
    return dt_ref._mel(mel, dft, rate, lo, hi)


def case_mel_weight_matrix(rng):
    node = helper.make_node("MelWeightMatrix", ["m", "d", "r", "lo", "hi"],
                            ["y"])
    m = model([node, helper.make_node("Mul", ["y", "x"], ["z"])],
              [vi("x", [1])], [vi("z", None)],
              [init("m", np.array(12, np.int64)),
               init("d", np.array(64, np.int64)),
               init("r", np.array(16000, np.int64)),
               init("lo", np.array(60.0, np.float32)),
               init("hi", np.array(7600.0, np.float32))])
    x = np.array([1.5], np.float32)
    return m, {"x": x}, [mel_ref(12, 64, 16000, 60.0, 7600.0) * 1.5]


def case_dft_length_from_data_refused(rng):
    node = helper.make_node("DFT", ["x", "n"], ["y"], axis=1)
    m = model([node], [vi("x", [2, 8, 1]), vi("n", [], I64)],
              [vi("y", None)])
    return m, {}, "must be known at compile time"


def case_dft_onesided_inverse_refused(rng):
    node = helper.make_node("DFT", ["x"], ["y"], axis=1, inverse=1,
                            onesided=1)
    m = model([node], [vi("x", [2, 8, 1])], [vi("y", None)])
    return m, {}, "one-sided inverse transform is not supported"


def case_dft_too_long_refused(rng):
    node = helper.make_node("DFT", ["x"], ["y"], axis=1)
    m = model([node], [vi("x", [1, 8192, 1])], [vi("y", None)])
    return m, {}, "a transform of length 8192 is not supported"


if __name__ == "__main__":
    cr.main_with_cases(globals())
