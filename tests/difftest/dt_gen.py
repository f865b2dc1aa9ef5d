# SPDX-License-Identifier: MIT
"""Random valid ONNX graphs (opset 17) for the differential fuzzer.

generate(seed) returns the same graph for the same seed on every machine
(numpy's PCG64 with a fixed seed, no dict-order or hash dependence). A
graph is built step by step: each step applies one template (a single op
with random attributes, or a pattern the compiler rewrites: Conv-BN-ReLU,
Gemm/MatMul + bias + activation, elementwise chains, the decomposed
LayerNorm, GELU, attention, Shape->Gather->Reshape chains for folding,
duplicated nodes for CSE, independent branches for the stream assigner,
NC1HWC0-friendly conv chains with channel counts like 3, 17 and 33). Every
node is evaluated at once by dt_ref (float64): its shape drives the next
choices and a node whose values leave a sane range (non-finite, > 1e4) or
whose inputs would be outside its domain is rolled back and another drawn.
"""

import contextlib
import math

import numpy as np

import dt_ref
from dt_graph import Graph, Node

# Every ONNX op the generator can emit (the op-table test checks that each
# op the table claims is here).
GENERATED_OPS = sorted("""
Add Sub Mul Div Pow Max Min Sum Mean PRelu Equal Less Greater LessOrEqual
GreaterOrEqual And Or Xor Not Where Relu Sigmoid Tanh Exp Log Sqrt Erf Neg
Abs Reciprocal Floor Ceil HardSwish Softplus Softsign Identity Dropout
LeakyRelu Elu Selu HardSigmoid ThresholdedRelu Clip Cast CastLike Conv
MaxPool AveragePool GlobalAveragePool GlobalMaxPool BatchNormalization Gemm
MatMul Softmax LogSoftmax LayerNormalization ReduceSum ReduceMean ReduceMax
ReduceMin ReduceProd ReduceSumSquare ReduceL1 ReduceL2 ReduceLogSum
ReduceLogSumExp Reshape Flatten Squeeze Unsqueeze Transpose Concat Split
Slice Gather Expand Shape Size ConstantOfShape Range Pad Resize GridSample
RoiAlign Einsum QLinearConv QLinearMatMul Det MatMulInteger ConvInteger
DynamicQuantizeLinear Trilu
QuantizeLinear DequantizeLinear Constant Sign Round Mod IsNaN IsInf Celu
Shrink Hardmax Tile OneHot Sinh Cosh ConvTranspose RNN LSTM GRU
DepthToSpace SpaceToDepth InstanceNormalization MeanVarianceNormalization
LRN ArgMax ArgMin GatherElements GatherND CumSum TopK ScatterND
ScatterElements Sin Cos Tan Asin Acos Atan Asinh Acosh Atanh EyeLike
HannWindow HammingWindow BlackmanWindow Compress ReverseSequence MaxUnpool
NonZero NonMaxSuppression Unique If Loop Scan DFT STFT MelWeightMatrix
BitShift TfIdfVectorizer
""".split())

MAX_NUMEL = 6144
CHANNELS = [1, 2, 3, 4, 8, 16, 17, 33]
SPATIAL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12]
DIMS = [1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 33]


class Reject(Exception):
    """The step cannot be applied here; roll it back and draw another."""


class Gen:
    def __init__(self, seed, max_nodes=12, min_nodes=2):
        self.rng = np.random.default_rng([seed, 0x6e7075])
        self.g = Graph()
        self.vals = {}
        self.dts = {}
        self.pool = []
        self.k = 0
        self.max_nodes = max_nodes
        self.min_nodes = min_nodes
        self.ops_used = set()
        # outputs of data-dependent extent: graph outputs, never read
        self.counted = []

    # ------------------------------------------------------------ helpers

    def r(self, n):
        return int(self.rng.integers(n))

    def choice(self, seq, p=None):
        if p is not None:
            p = np.asarray(p, dtype=np.float64)
            p = p / p.sum()
            return seq[int(self.rng.choice(len(seq), p=p))]
        return seq[self.r(len(seq))]

    def coin(self, p=0.5):
        return bool(self.rng.random() < p)

    def fresh(self, prefix="v"):
        self.k += 1
        # now and then a name of the compiler's own style ("t5")
        if prefix == "v" and self.rng.random() < 0.03:
            return "t%d" % self.k
        return "%s%d" % (prefix, self.k)

    @contextlib.contextmanager
    def txn(self):
        """Roll the graph back if the block raises Reject."""
        g = self.g
        snap = (len(g.nodes), list(g.inputs), dict(g.feeds), dict(g.inits),
                list(self.pool), set(self.ops_used), list(self.counted))
        try:
            yield
        except (Reject, ValueError, IndexError, ZeroDivisionError,
                FloatingPointError, NotImplementedError, TypeError):
            n, ins, feeds, inits, pool, used, counted = snap
            for nd in g.nodes[n:]:
                for o in nd.outputs:
                    self.vals.pop(o, None)
                    self.dts.pop(o, None)
            del g.nodes[n:]
            g.inputs, g.feeds, g.inits = ins, feeds, inits
            self.pool = pool
            self.ops_used = used
            self.counted = counted
            raise Reject()

    def shape(self, name):
        return tuple(self.vals[name].shape)

    def is_float(self, name):
        return self.dts[name] == "float32"

    def rand_values(self, shape, lo=-2.0, hi=2.0):
        return np.asarray(self.rng.uniform(lo, hi, size=shape),
                          dtype=np.float32)

    def new_input(self, shape, dtype="float32", lo=-2.0, hi=2.0):
        name = self.fresh("in")
        if dtype == "float32":
            v = self.rand_values(shape, lo, hi)
        elif dtype == "bool":
            v = self.rng.random(shape) < 0.5
        else:
            v = self.rng.integers(-5, 6, size=shape).astype(dtype)
        self.g.inputs.append((name, dtype, tuple(shape)))
        self.g.feeds[name] = v
        self.vals[name] = v.astype(np.float64) if dtype == "float32" else v
        self.dts[name] = dtype
        self.pool.append(name)
        return name

    def const(self, arr, prefix="c"):
        name = self.fresh(prefix)
        arr = np.asarray(arr)
        if arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        self.g.inits[name] = arr
        self.vals[name] = arr.astype(np.float64) if arr.dtype.kind == "f" \
            else arr
        self.dts[name] = str(arr.dtype)
        return name

    def fconst(self, shape, lo=-1.0, hi=1.0):
        return self.const(self.rand_values(shape, lo, hi))

    def iconst(self, values, dtype=np.int64):
        return self.const(np.array(values, dtype=dtype))

    def node(self, op, inputs, attrs=None, nout=1, outputs=None,
             pool=True, finite=True):
        """Add a node, evaluate it in float64, check its values (finite
        and sane unless finite is False)."""
        outs = outputs or [self.fresh() for _ in range(nout)]
        n = Node(op, inputs, outs, attrs)
        ins = [self.vals[i] if i else None for i in inputs]
        in_dt = [self.dts[i] if i else None for i in inputs]
        with np.errstate(all="ignore"):
            vals, dts = dt_ref._eval_node(n, ins, in_dt, np.float64,
                                          (self.vals, self.dts))
        for v, dt in zip(vals, dts):
            v = np.asarray(v)
            if v.size > MAX_NUMEL or v.ndim > 6 or v.size == 0:
                raise Reject()
            if finite and dt in ("float32", "float16") and v.size and \
                    (not np.isfinite(v).all() or np.abs(v).max() > 1e4):
                raise Reject()
        self.g.nodes.append(n)
        self.ops_used.add(op)
        for name, v, dt in zip(outs, vals, dts):
            if not name:
                continue
            self.vals[name] = np.asarray(v)
            self.dts[name] = dt
            if pool:
                self.pool.append(name)
        return outs[0] if len(outs) == 1 else outs

    def pick(self, pred=None, new_shape=None, p_new=0.15):
        """A tensor of the pool that satisfies pred (recent ones first),
        or a new graph input of shape new_shape()."""
        cands = [t for t in self.pool if pred is None or pred(self, t)]
        if cands and not (new_shape and self.coin(p_new)):
            w = np.arange(1, len(cands) + 1, dtype=np.float64) ** 2
            return cands[int(self.rng.choice(len(cands), p=w / w.sum()))]
        if new_shape is None:
            raise Reject()
        return self.new_input(new_shape())

    # ------------------------------------------------------------ shapes

    def shape_nchw(self):
        for _ in range(20):
            s = (self.choice([1, 1, 2]), self.choice(CHANNELS),
                 self.choice(SPATIAL), self.choice(SPATIAL))
            if np.prod(s) <= 2048:
                return s
        return (1, 3, 4, 4)

    def shape_any(self, rank=None):
        rank = rank or self.choice([1, 2, 2, 3, 3, 4, 4, 5])
        for _ in range(20):
            s = tuple(self.choice(DIMS) for _ in range(rank))
            if np.prod(s) <= 2048:
                return s
        return (2,) * rank

    def bcast_of(self, shape):
        """A shape that broadcasts to shape (dims to 1, leading dropped)."""
        s = list(shape)
        if self.coin(0.3):
            return tuple(s)
        drop = self.r(len(s) + 1) if self.coin(0.4) else 0
        s = s[drop:]
        s = [1 if self.coin(0.4) else d for d in s]
        return tuple(s)

    # ------------------------------------------------------------ preds

    @staticmethod
    def f_any(gen, t):
        return gen.is_float(t) and gen.vals[t].size > 0

    @staticmethod
    def f4(gen, t):
        return gen.is_float(t) and gen.vals[t].ndim == 4 and \
            gen.vals[t].size > 0

    @staticmethod
    def f_ge2(gen, t):
        return gen.is_float(t) and gen.vals[t].ndim >= 2 and \
            gen.vals[t].size > 0

    @staticmethod
    def f_rank(r):
        return lambda gen, t: gen.is_float(t) and gen.vals[t].ndim == r \
            and gen.vals[t].size > 0

    def pick_f(self):
        return self.pick(Gen.f_any, self.shape_any)

    def pick_f4(self):
        return self.pick(Gen.f4, self.shape_nchw)

    def positive(self, x, lo=0.1):
        """x itself when its values are >= lo, else Add(Abs(x), c)."""
        v = self.vals[x]
        if v.min() >= lo:
            return x
        a = self.node("Abs", [x])
        return self.node("Add", [a, self.const(np.float32(
            self.choice([0.5, 1.0, 1.5])))])

    # ------------------------------------------------------------ templates

    UNARY = ["Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Neg",
             "Abs", "Reciprocal", "Floor", "Ceil", "HardSwish", "Softplus",
             "Softsign", "Identity", "Dropout", "LeakyRelu", "Elu", "Selu",
             "HardSigmoid", "ThresholdedRelu", "Clip"]

    def t_unary(self, x=None, op=None):
        x = x or self.pick_f()
        op = op or self.choice(self.UNARY)
        v = self.vals[x]
        attrs = {}
        ins = [x]
        if op in ("Log", "Sqrt", "Reciprocal"):
            ins = [self.positive(x)]
        elif op == "Exp" and v.max() > 6:
            raise Reject()
        elif op == "LeakyRelu":
            attrs["alpha"] = self.choice([0.01, 0.1, 0.2, 1.5])
        elif op == "Elu":
            attrs["alpha"] = self.choice([1.0, 0.5, 2.0])
        elif op == "Selu" and self.coin():
            attrs["alpha"] = 1.5
            attrs["gamma"] = 1.25
        elif op == "HardSigmoid":
            if self.coin():
                attrs["alpha"] = self.choice([0.2, 1 / 6.0, 0.5])
                attrs["beta"] = self.choice([0.5, 0.25])
        elif op == "ThresholdedRelu":
            attrs["alpha"] = self.choice([0.0, 0.5, 1.0, -0.25])
        elif op == "Clip":
            lo, hi = sorted([self.choice([-1.0, -0.5, 0.0, 0.25]),
                             self.choice([0.5, 1.0, 6.0])])
            form = self.r(4)
            if form == 0:
                ins = [x, self.const(np.float32(lo)),
                       self.const(np.float32(hi))]
            elif form == 1:
                ins = [x, self.const(np.float32(lo))]
            elif form == 2:
                ins = [x, "", self.const(np.float32(hi))]
            else:
                ins = [x, self.const(np.float32(0)),
                       self.const(np.float32(6))]
        return self.node(op, ins, attrs)

    def other_operand(self, x):
        """A second operand for a binary op with x."""
        s = self.shape(x)
        how = self.r(6)
        if how == 0:
            return x
        if how in (1, 2):
            return self.fconst(self.bcast_of(s))
        if how == 3:
            bs = self.bcast_of(s)
            for t in reversed(self.pool):
                if t != x and self.is_float(t) and self.shape(t) == bs:
                    return t
            return self.new_input(bs)
        if how == 4:
            # the other way round: x broadcasts to a bigger operand
            if len(s) < 4 and self.coin():
                big = (self.choice([2, 3]),) + s
            else:
                big = tuple(self.choice([2, 3]) if d == 1 else d for d in s)
            return self.new_input(big)
        return self.new_input(self.bcast_of(s))

    BINARY = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "PRelu"]

    def t_binary(self, x=None, op=None):
        x = x or self.pick_f()
        op = op or self.choice(self.BINARY)
        if op == "PRelu":
            # the slope broadcasts to x (unidirectional)
            s = self.shape(x)
            if len(s) >= 2 and self.coin():
                ss = (s[1],) + (1,) * (len(s) - 2)
            else:
                ss = self.bcast_of(s)
            return self.node("PRelu", [x, self.fconst(ss, -0.5, 0.5)])
        if op == "Pow":
            form = self.r(3)
            if form == 0:
                e = self.const(np.float32(self.choice([2.0, 3.0, -1.0,
                                                       0.0, 1.0])))
                return self.node("Pow", [x, e])
            base = self.positive(x, 0.2)
            if form == 1:
                e = self.const(np.float32(self.choice([0.5, 1.5, -0.5,
                                                       2.5])))
            else:
                e = self.fconst(self.bcast_of(self.shape(x)), -1.5, 1.5)
            return self.node("Pow", [base, e])
        y = self.other_operand(x)
        if op == "Div":
            y = self.positive(y, 0.2)
        a, b = (x, y) if self.coin(0.7) else (y, x)
        if op == "Div" and b != y:
            b = self.positive(b, 0.2)
        return self.node(op, [a, b])

    def t_variadic(self):
        op = self.choice(["Max", "Min", "Sum", "Mean", "Max", "Min"])
        x = self.pick_f()
        k = self.choice([1, 2, 3, 3, 4])
        ins = [x]
        for _ in range(k - 1):
            if self.coin(0.4):
                ins.append(self.t_unary(x, self.choice(["Relu", "Neg",
                                                        "Abs", "Tanh"])))
            else:
                ins.append(self.other_operand(x))
        order = list(self.rng.permutation(len(ins)))
        return self.node(op, [ins[i] for i in order])

    CMP = ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]

    def t_compare(self):
        x = self.pick_f()
        op = self.choice(self.CMP)
        if op == "Equal" and self.coin():
            y = self.node("Floor", [x]) if self.coin() else x
        else:
            y = self.other_operand(x)
        c = self.node(op, [x, y])
        if self.coin(0.5):
            how = self.choice(["Not", "And", "Or", "Xor"])
            if how == "Not":
                c = self.node("Not", [c])
            else:
                c2 = self.node(self.choice(self.CMP),
                               [x, self.fconst(self.bcast_of(
                                   self.shape(x)))])
                c = self.node(how, [c, c2])
        a = x if self.coin() else self.t_unary(x, "Neg")
        b = self.other_operand(x) if self.coin() else \
            self.const(np.float32(0))
        if self.coin(0.2):
            # the condition itself as a float output
            return self.node("Cast", [c], {"to": "float32"})
        return self.node("Where", [c, a, b])

    def t_conv(self, x=None, then_bn=None, then_act=None):
        x = x or self.pick_f4()
        n, c, h, w = self.shape(x)
        kind = self.r(6)
        if kind == 0 and c > 1:
            group = c                       # depthwise
            o = c * self.choice([1, 1, 2])
        elif kind == 1 and c % 2 == 0 and c > 2:
            group = self.choice([d for d in (2, c // 2) if c % d == 0])
            o = group * self.choice([1, 2])
        else:
            group = 1
            o = self.choice(CHANNELS + [5, 24])
        kh = self.choice([1, 1, 2, 3, 3, 5, 7])
        kw = kh if self.coin(0.8) else self.choice([1, 3])
        attrs = {}
        sh, sw = self.choice([1, 1, 2]), self.choice([1, 1, 2])
        if sh != 1 or sw != 1 or self.coin(0.3):
            attrs["strides"] = [sh, sw]
        dh, dw = (self.choice([1, 1, 2]), self.choice([1, 1, 2]))
        if dh != 1 or dw != 1:
            attrs["dilations"] = [dh, dw]
        if self.coin(0.15):
            attrs["auto_pad"] = self.choice(["SAME_UPPER", "SAME_LOWER",
                                             "VALID"])
        elif self.coin(0.7):
            p = [self.r(kh) if kh > 1 else 0, self.r(kw) if kw > 1 else 0]
            p = p + ([p[0], p[1]] if self.coin(0.7) else
                     [self.r(kh), self.r(kw)])
            attrs["pads"] = p
        if self.coin(0.3):
            attrs["kernel_shape"] = [kh, kw]
        if group > 1:
            attrs["group"] = group
        scale = 1.0 / math.sqrt(max(1, c // group * kh * kw))
        wt = self.fconst((o, c // group, kh, kw), -scale * 1.7, scale * 1.7)
        ins = [x, wt]
        if self.coin(0.6):
            ins.append(self.fconst((o,), -0.5, 0.5))
        y = self.node("Conv", ins, attrs)
        if then_bn or (then_bn is None and self.coin(0.35)):
            y = self.t_bn(y)
        if then_act or (then_act is None and self.coin(0.5)):
            y = self.t_act(y)
        return y

    def t_act(self, y):
        op = self.choice(["Relu", "Relu", "Clip6", "LeakyRelu", "Sigmoid",
                          "Tanh", "HardSwish", "SiLU", "Elu", "HardSigmoid"])
        if op == "Clip6":
            return self.node("Clip", [y, self.const(np.float32(0)),
                                      self.const(np.float32(6))])
        if op == "SiLU":
            return self.node("Mul", [y, self.node("Sigmoid", [y])])
        return self.t_unary(y, op)

    def t_bn(self, x=None):
        x = x or self.pick(Gen.f_ge2, self.shape_nchw)
        c = self.shape(x)[1]
        ins = [x, self.fconst((c,), 0.5, 1.5), self.fconst((c,), -0.5, 0.5),
               self.fconst((c,), -0.5, 0.5), self.fconst((c,), 0.25, 2.0)]
        attrs = {}
        if self.coin(0.4):
            attrs["epsilon"] = self.choice([1e-3, 1e-5, 0.1])
        return self.node("BatchNormalization", ins, attrs)

    def t_pool(self):
        x = self.pick_f4()
        n, c, h, w = self.shape(x)
        op = self.choice(["MaxPool", "AveragePool", "GlobalAveragePool",
                          "GlobalMaxPool"])
        if op.startswith("Global"):
            return self.node(op, [x])
        kh = min(self.choice([1, 2, 2, 3, 3, 5]), h + 1)
        kw = min(self.choice([1, 2, 2, 3, 3]), w + 1)
        attrs = {"kernel_shape": [kh, kw]}
        if self.coin(0.6):
            attrs["strides"] = [self.choice([1, 2, 2, 3]),
                                self.choice([1, 2, 2])]
        dil = [1, 1]
        if op == "MaxPool" and self.coin(0.2):
            dil = [self.choice([1, 2]), self.choice([1, 2])]
            attrs["dilations"] = dil
        if self.coin(0.5):
            pmax = [(dil[0] * (kh - 1) + 1) // 2, (dil[1] * (kw - 1) + 1) // 2]
            p = [self.r(pmax[0] + 1), self.r(pmax[1] + 1)]
            attrs["pads"] = p + [self.r(pmax[0] + 1), self.r(pmax[1] + 1)]
        if self.coin(0.3):
            attrs["ceil_mode"] = 1
        if op == "AveragePool" and self.coin(0.4):
            attrs["count_include_pad"] = 1
        return self.node(op, [x], attrs)

    def to_rank2(self, x):
        s = self.shape(x)
        if len(s) == 2:
            return x
        if len(s) > 2 and self.coin():
            return self.node("Flatten", [x], {"axis": self.choice(
                [1, 1, len(s) - 1])})
        return self.node("Reshape", [x, self.iconst([1, -1])])

    def t_gemm(self):
        x = self.to_rank2(self.pick(Gen.f_ge2, lambda: self.shape_any(2)))
        m, k = self.shape(x)
        attrs = {}
        if self.coin(0.25):
            x = self.node("Transpose", [x], {"perm": [1, 0]})
            attrs["transA"] = 1
        n = self.choice(DIMS + [m])
        sc = 1.0 / math.sqrt(k)
        if self.coin(0.4):
            b = self.fconst((n, k), -sc * 1.7, sc * 1.7)
            attrs["transB"] = 1
        else:
            b = self.fconst((k, n), -sc * 1.7, sc * 1.7)
        ins = [x, b]
        if self.coin(0.3):
            attrs["alpha"] = self.choice([0.5, 2.0])
        cs = self.choice([None, (n,), (1, n), (m, 1), (m, n), ()])
        if cs is not None:
            ins.append(self.fconst(cs, -0.5, 0.5))
            if self.coin(0.3):
                attrs["beta"] = self.choice([0.5, 2.0, 0.0])
        y = self.node("Gemm", ins, attrs)
        if self.coin(0.2):
            y = self.t_bn(y)
        if self.coin(0.2):
            y = self.node("Add", [y, self.fconst((n,))])
        if self.coin(0.5):
            y = self.t_act(y)
        return y

    def t_matmul(self):
        x = self.pick(Gen.f_any, self.shape_any)
        s = self.shape(x)
        k = s[-1]
        form = self.r(5)
        n = self.choice(DIMS)
        sc = 1.0 / math.sqrt(k)
        if form == 0:
            w = self.fconst((k,), -sc * 1.7, sc * 1.7)      # 1-D weight
        elif form == 1 and len(s) >= 2:
            # batched weight, broadcast against x's batch dims
            bs = self.bcast_of(s[:-2]) if len(s) > 2 else ()
            w = self.fconst(bs + (k, n), -sc * 1.7, sc * 1.7)
        elif form == 2:
            w = self.new_input((k, n))
        else:
            w = self.fconst((k, n), -sc * 1.7, sc * 1.7)
        y = self.node("MatMul", [x, w])
        if self.coin(0.6):
            ys = self.shape(y)
            bshape = ys[-1:] if ys and self.coin(0.7) else self.bcast_of(ys)
            b = self.fconst(bshape, -0.5, 0.5)
            y = self.node("Add", [y, b] if self.coin(0.8) else [b, y])
        if self.coin(0.3):
            # a residual add of the same shape
            y = self.node("Add", [y, self.new_input(self.shape(y))])
        if self.coin(0.5):
            y = self.t_act(y)
        return y

    @staticmethod
    def f_ge1(gen, t):
        return gen.is_float(t) and gen.vals[t].ndim >= 1 and \
            gen.vals[t].size > 0

    def t_softmax(self):
        x = self.pick(Gen.f_ge1, self.shape_any)
        r = self.vals[x].ndim
        attrs = {}
        if self.coin(0.6):
            attrs["axis"] = self.r(2 * r) - r
        return self.node(self.choice(["Softmax", "LogSoftmax"]), [x], attrs)

    def t_layernorm(self):
        x = self.pick(Gen.f_ge1, self.shape_any)
        s = self.shape(x)
        r = len(s)
        if self.coin(0.5):
            return self.ln_decomposed(x)
        ax = self.choice([-1, -1, r - 1] + list(range(-r, r)))
        axn = ax + r if ax < 0 else ax
        ns = s[axn:]
        attrs = {}
        if ax != -1:
            attrs["axis"] = ax
        if self.coin(0.4):
            attrs["epsilon"] = self.choice([1e-5, 1e-3, 1e-12])
        ins = [x, self.fconst(ns, 0.5, 1.5)]
        if self.coin(0.7):
            ins.append(self.fconst(ns, -0.5, 0.5))
        nout = self.choice([1, 1, 1, 2, 3])
        outs = [self.fresh() for _ in range(nout)]
        if nout == 3 and self.coin():
            outs[1] = ""                        # skipped optional output
        res = self.node("LayerNormalization", ins, attrs, outputs=outs)
        return res if isinstance(res, str) else res[0]

    def ln_decomposed(self, x):
        m = self.node("ReduceMean", [x], {"axes": [-1]})
        d = self.node("Sub", [x, m])
        p = self.node("Pow", [d, self.const(np.float32(2))])
        v = self.node("ReduceMean", [p], {"axes": [-1]})
        e = self.node("Add", [v, self.const(np.float32(1e-5))])
        sd = self.node("Sqrt", [e])
        y = self.node("Div", [d, sd])
        c = self.shape(x)[-1]
        y = self.node("Mul", [y, self.fconst((c,), 0.5, 1.5)])
        return self.node("Add", [y, self.fconst((c,), -0.5, 0.5)])

    def t_gelu(self):
        x = self.pick_f()
        if self.coin(0.5):
            d = self.node("Div", [x, self.const(np.float32(math.sqrt(2)))])
        else:
            d = self.node("Mul", [x, self.const(
                np.float32(1 / math.sqrt(2)))])
        e = self.node("Erf", [d])
        a = self.node("Add", [e, self.const(np.float32(1))])
        if self.coin():
            m = self.node("Mul", [x, a])
            return self.node("Mul", [m, self.const(np.float32(0.5))])
        h = self.node("Mul", [x, self.const(np.float32(0.5))])
        return self.node("Mul", [h, a])

    def t_attention(self):
        b = self.choice([1, 2])
        s = self.choice([1, 3, 4, 7, 8])
        heads = self.choice([1, 2, 4])
        dh = self.choice([2, 4, 8])
        d = heads * dh
        x = self.pick(lambda g, t: g.is_float(t) and g.shape(t) == (b, s, d),
                      lambda: (b, s, d), p_new=1.0)
        sc = 1.0 / math.sqrt(d)

        def proj():
            y = self.node("MatMul", [x, self.fconst((d, d), -sc * 1.7,
                                                    sc * 1.7)])
            if self.coin(0.7):
                y = self.node("Add", [y, self.fconst((d,), -0.3, 0.3)])
            y = self.node("Reshape", [y, self.iconst([b, s, heads, dh])])
            return y

        q = self.node("Transpose", [proj()], {"perm": [0, 2, 1, 3]})
        k = proj()
        kt = self.node("Transpose", [k], {"perm": [0, 2, 3, 1]})
        v = self.node("Transpose", [proj()], {"perm": [0, 2, 1, 3]})
        sco = self.node("MatMul", [q, kt])
        if self.coin():
            sco = self.node("Div", [sco, self.const(
                np.float32(math.sqrt(dh)))])
        else:
            sco = self.node("Mul", [sco, self.const(
                np.float32(1 / math.sqrt(dh)))])
        if self.coin(0.4):
            mask = np.where(self.rng.random((1, 1, s, s)) < 0.3, -1e4,
                            0.0).astype(np.float32)
            mask[..., 0] = 0
            sco = self.node("Add", [sco, self.const(mask)])
        p = self.node("Softmax", [sco], {"axis": -1})
        o = self.node("MatMul", [p, v])
        o = self.node("Transpose", [o], {"perm": [0, 2, 1, 3]})
        return self.node("Reshape", [o, self.iconst([b, s, d])])

    REDUCE = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
              "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp"]

    def t_reduce(self):
        x = self.pick_f()
        op = self.choice(self.REDUCE)
        r = self.vals[x].ndim
        k = self.r(r + 1)
        axes = sorted(int(a) for a in self.rng.choice(r, size=k,
                                                       replace=False))
        axes = [a - r if self.coin(0.3) else a for a in axes]
        attrs = {}
        if self.coin(0.4):
            attrs["keepdims"] = 0
        if op == "ReduceProd":
            x = self.node("Clip", [x, self.const(np.float32(-1.5)),
                                   self.const(np.float32(1.5))])
        if op == "ReduceLogSum":
            x = self.positive(x, 0.2)
        if op == "ReduceLogSumExp" and self.coin(0.5):
            # large values: the naive log(sum(exp)) overflows
            x = self.node("Mul", [x, self.const(np.float32(60.0))])
        ins = [x]
        if op == "ReduceSum":
            if axes or self.coin():
                ins.append(self.iconst(axes))
            elif self.coin(0.3):
                attrs["noop_with_empty_axes"] = 1
        elif axes:
            attrs["axes"] = axes
        return self.node(op, ins, attrs)

    def t_reshape(self):
        x = self.pick(lambda g, t: g.vals[t].size > 0, self.shape_any)
        s = list(self.shape(x))
        form = self.r(5)
        if form == 0:
            return self.node("Flatten", [x], {"axis": self.r(len(s) + 1)})
        if form == 1:
            ax = self.r(len(s) + 1)
            axes = [ax] if self.coin() else [ax, len(s) + 1]
            if self.coin(0.3):
                axes = [a - len(s) - len(axes) for a in axes]
            return self.node("Unsqueeze", [x, self.iconst(axes)])
        if form == 2 and 1 in s:
            ones = [i for i, d in enumerate(s) if d == 1]
            axes = ones if self.coin(0.5) else [self.choice(ones)]
            if self.coin(0.2):
                return self.node("Squeeze", [x])
            return self.node("Squeeze", [x, self.iconst(axes)])
        # Reshape: factor the element count anew, with 0 and -1 now and then
        total = int(np.prod(s))
        dims = []
        rest = total
        for _ in range(self.choice([1, 2, 3, 4])):
            divs = [d for d in range(1, rest + 1) if rest % d == 0]
            d = self.choice(divs)
            dims.append(d)
            rest //= d
        dims.append(rest)
        dims = dims[:6]
        if int(np.prod(dims)) != total:
            raise Reject()
        if self.coin(0.4):
            dims[self.r(len(dims))] = -1
        if s and dims and dims[0] == s[0] and self.coin(0.5):
            dims[0] = 0
        return self.node("Reshape", [x, self.iconst(dims)])

    def t_transpose(self):
        x = self.pick(Gen.f_ge2, self.shape_any)
        r = self.vals[x].ndim
        attrs = {}
        if self.coin(0.85):
            attrs["perm"] = [int(p) for p in self.rng.permutation(r)]
        y = self.node("Transpose", [x], attrs)
        if self.coin(0.3):
            # a pair the compiler may merge
            y = self.node("Transpose", [y], {"perm": [int(p) for p in
                                                      self.rng.permutation(
                                                          r)]})
        return y

    def t_concat(self):
        x = self.pick(Gen.f_any, self.shape_any)
        s = self.shape(x)
        ax = self.r(len(s))
        ins = [x]
        for _ in range(self.choice([1, 1, 2, 3])):
            t = list(s)
            t[ax] = self.choice([1, 2, 3, s[ax]])
            t = tuple(t)
            same = [p for p in self.pool if p != x and self.is_float(p)
                    and self.shape(p) == t]
            if same and self.coin():
                ins.append(self.choice(same))
            elif self.coin(0.3):
                ins.append(x)
            else:
                ins.append(self.new_input(t) if self.coin() else
                           self.fconst(t))
        attrs = {"axis": ax - len(s) if self.coin(0.3) else ax}
        return self.node("Concat", ins, attrs)

    def t_split(self):
        x = self.pick(lambda g, t: g.is_float(t) and
                      max(g.shape(t) or (0,)) >= 2, self.shape_any)
        s = self.shape(x)
        cand = [i for i, d in enumerate(s) if d >= 2]
        ax = self.choice(cand)
        d = s[ax]
        k = self.choice([2, 2, 3]) if d >= 3 else 2
        ins = [x]
        if self.coin(0.5):
            cuts = sorted(int(c) for c in self.rng.choice(
                np.arange(1, d), size=min(k - 1, d - 1), replace=False))
            sizes = np.diff([0] + cuts + [d]).tolist()
            ins.append(self.iconst(sizes))
            k = len(sizes)
        elif d % k:
            k = 2 if d % 2 == 0 else d
            if k > 4:
                raise Reject()
        attrs = {"axis": ax if self.coin(0.7) else ax - len(s)}
        outs = self.node("Split", ins, attrs, nout=k)
        outs = outs if isinstance(outs, list) else [outs]
        if len(outs) >= 2 and self.coin(0.6):
            a, b = outs[0], outs[-1]
            if self.shape(a) == self.shape(b):
                return self.node(self.choice(["Add", "Mul", "Sub"]), [a, b])
        return outs[self.r(len(outs))]

    def t_slice(self):
        x = self.pick(lambda g, t: g.vals[t].size > 0 and g.vals[t].ndim > 0,
                      self.shape_any)
        s = self.shape(x)
        r = len(s)
        naxes = self.choice([1, 1, 2, r])
        axes = sorted(int(a) for a in self.rng.choice(r, size=min(naxes, r),
                                                       replace=False))
        starts, ends, steps = [], [], []
        for a in axes:
            d = s[a]
            neg = self.coin(0.15)
            st = self.choice([1, 1, 1, 2, 3]) * (-1 if neg else 1)
            if st > 0:
                b = self.r(d)
                e = self.choice([d, b + 1 + self.r(d - b), 2 ** 31 - 1,
                                 -1 if d > 1 else d])
                if self.coin(0.2):
                    b = b - d                     # negative start
            else:
                b = self.choice([d - 1, -1, self.r(d), 2 ** 31 - 1])
                e = self.choice([-d - 1, 0, -(2 ** 31), self.r(d) - d - 1])
            starts.append(b)
            ends.append(e)
            steps.append(st)
        ins = [x, self.iconst(starts), self.iconst(ends)]
        full = self.coin(0.6) or any(t != 1 for t in steps)
        if full or axes != list(range(len(axes))):
            ax = [a - r if self.coin(0.2) else a for a in axes]
            ins.append(self.iconst(ax))
            if any(t != 1 for t in steps) or self.coin(0.3):
                ins.append(self.iconst(steps))
        y = self.node("Slice", ins)
        if self.vals[y].size == 0:
            raise Reject()
        return y

    def t_gather(self):
        x = self.pick(lambda g, t: g.vals[t].size > 0 and g.vals[t].ndim > 0,
                      self.shape_any)
        s = self.shape(x)
        ax = self.r(len(s))
        d = s[ax]
        form = self.r(3)
        if form == 0:
            idx = np.array(self.r(2 * d) - d)          # scalar index
        else:
            ish = (self.choice([1, 2, 3, 5]),) if form == 1 else \
                (self.choice([1, 2]), self.choice([2, 3]))
            idx = self.rng.integers(-d, d, size=ish)
        dt = np.int64 if self.coin(0.7) else np.int32
        attrs = {"axis": ax - len(s) if self.coin(0.3) else ax}
        return self.node("Gather", [x, self.const(idx.astype(dt))], attrs)

    def t_expand(self):
        x = self.pick_f()
        s = self.shape(x)
        tgt = [self.choice([2, 3]) if d == 1 else d for d in s]
        tgt = [d if self.coin(0.6) else (1 if self.coin(0.3) else d)
               for d in tgt]
        if self.coin(0.3):
            tgt = [self.choice([1, 2])] + tgt
        return self.node("Expand", [x, self.iconst(tgt)])

    def t_pad(self):
        x = self.pick(Gen.f_any, self.shape_any)
        s = self.shape(x)
        r = len(s)
        mode = self.choice(["constant", "constant", "reflect", "edge"])
        pads = []
        for i in range(2 * r):
            d = s[i % r]
            if mode == "reflect":
                p = self.r(d) if d >= 2 else 0
            else:
                p = self.choice([0, 0, 1, 2, 3])
                if self.coin(0.1) and d > 1:
                    p = -self.r(d)                  # negative: crops
            pads.append(p)
        ins = [x, self.iconst(pads)]
        if mode == "constant" and self.coin(0.5):
            ins.append(self.const(np.float32(self.choice([0.0, 1.5,
                                                          -2.0]))))
        attrs = {} if mode == "constant" and self.coin() else {"mode": mode}
        y = self.node("Pad", ins, attrs)
        if self.vals[y].size == 0:
            raise Reject()
        return y

    CT_MODES = ["half_pixel", "pytorch_half_pixel", "asymmetric",
                "align_corners", "tf_half_pixel_for_nn"]

    def t_resize(self):
        x = self.pick(Gen.f4, self.shape_nchw)
        s = self.shape(x)
        mode = self.choice(["nearest", "linear", "cubic"])
        ct = self.choice(self.CT_MODES[:4] + (
            ["tf_half_pixel_for_nn"] if mode == "nearest" else []))
        attrs = {"mode": mode}
        if mode == "cubic" and self.coin(0.5):
            attrs["cubic_coeff_a"] = self.choice([-0.5, -0.75, -1.0])
        if mode == "cubic" and self.coin(0.5):
            attrs["exclude_outside"] = 1
        if ct != "half_pixel" or self.coin(0.3):
            attrs["coordinate_transformation_mode"] = ct
        if mode == "nearest" and self.coin(0.6):
            attrs["nearest_mode"] = self.choice(
                ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
        if self.coin(0.5):
            sc = [1.0, 1.0] + [self.choice([2.0, 0.5, 3.0, 1.5, 1.0])
                               for _ in range(2)]
            # in * scale integral: where it is not, ONNX Runtime and the
            # ONNX reference disagree on align_corners (output or
            # unrounded length), so there is no reference to trust
            sc = [c if math.floor(s[i] * c) >= 1 and
                  float(s[i] * c).is_integer() else 1.0
                  for i, c in enumerate(sc)]
            ins = [x, "", self.const(np.array(sc, dtype=np.float32))]
        else:
            sz = list(s[:2]) + [max(1, self.choice([1, 2, 3, 5, 8, 2 * d]))
                                for d in s[2:]]
            # ORT 1.30 differs from ONNX's reference (and npuc) for a
            # cubic pytorch_half_pixel resize to a length of 1
            if mode == "cubic" and ct == "pytorch_half_pixel":
                sz = [d if i < 2 else max(2, d) for i, d in enumerate(sz)]
            ins = [x, "", "", self.iconst(sz)]
        return self.node("Resize", ins, attrs)

    def t_grid_sample(self):
        x = self.pick(Gen.f4, self.shape_nchw)
        n = self.vals[x].shape[0]
        g = self.new_input((n, self.choice(SPATIAL), self.choice(SPATIAL), 2),
                           lo=-1.3, hi=1.3)
        attrs = {"mode": self.choice(["bilinear", "nearest", "bicubic"]),
                 "padding_mode": self.choice(["zeros", "border",
                                              "reflection"])}
        if self.coin(0.5):
            attrs["align_corners"] = 1
        return self.node("GridSample", [x, g], attrs)

    def t_roi_align(self):
        x = self.pick(Gen.f4, self.shape_nchw)
        n, _, h, w = self.vals[x].shape
        r = self.choice([1, 2, 3, 5])
        lo = self.rng.uniform(-2, [w, h], size=(r, 2))
        rois = np.concatenate([lo, lo + self.rng.uniform(
            0.2, [w, h], size=(r, 2))], 1).astype(np.float32)
        attrs = {"mode": self.choice(["avg", "max"]),
                 "output_height": self.choice([1, 2, 3]),
                 "output_width": self.choice([1, 2, 4]),
                 "sampling_ratio": self.choice([0, 0, 1, 2]),
                 "spatial_scale": self.choice([1.0, 0.5])}
        if self.coin(0.5):
            attrs["coordinate_transformation_mode"] = "output_half_pixel"
        bi = self.const(self.rng.integers(0, n, size=r).astype(np.int64))
        return self.node("RoiAlign", [x, self.const(rois), bi], attrs)

    EINSUMS = ("bij,bjk->bik", "ij->ji", "ijk->ik", "bi,bi->b", "i,j->ij",
               "...ij,...jk->...ik", "bhqd,bhkd->bhqk", "ij,jk", "bii->bi",
               "ii->", "iij,jk->ik")

    def t_integer(self):
        """MatMulInteger / ConvInteger of quantized activations and int8
        weights (int32 outputs, back to float for the pool), or
        DynamicQuantizeLinear (its three outputs graph outputs)."""
        x = self.pick(Gen.f4, self.shape_nchw) if self.coin() else \
            self.pick(Gen.f_rank(2), lambda: (self.choice(SPATIAL),
                                             self.choice(CHANNELS)))
        s = self.shape(x)
        if self.coin(0.3):
            outs = self.node("DynamicQuantizeLinear", [x], nout=3,
                             pool=False)
            self.counted += list(outs)
            return x
        dt = self.choice([np.uint8, np.int8])
        zx = self.const(np.array(128 if dt == np.uint8 else 3, dtype=dt))
        xq = self.node("QuantizeLinear", [x, self.const(np.float32(0.05)),
                                          zx])
        conv = len(s) == 4
        co = self.choice([2, 4, 8])
        k = self.choice([1, 3]) if conv and s[1] * 9 <= 258 else 1
        if (s[1] * k * k) > 258:
            raise Reject()
        w = self.const(self.rng.integers(-100, 100, size=(
            (co, s[1], k, k) if conv else (s[1], co))).astype(np.int8))
        ins = [xq, w, zx]
        if self.coin(0.5):
            ins.append(self.const(np.zeros((), np.int8)))
        attrs = {"kernel_shape": [k, k], "pads": [k // 2] * 4} if conv \
            else {}
        y = self.node("ConvInteger" if conv else "MatMulInteger", ins,
                      attrs)
        return self.node("Cast", [y], {"to": "float32"})

    # ------------------------------------------------ control flow

    BRANCH_OPS = ["Relu", "Neg", "Abs", "Tanh", "Sigmoid", "Square"]

    def body(self, inputs, nodes, outputs, inits=None):
        """A subgraph: formal inputs [(name, dtype, shape)], nodes
        [(op, ins, outs, attrs)], float32 outputs."""
        b = Graph()
        b.inputs = list(inputs)
        b.inits = dict(inits or {})
        b.nodes = [Node(op, i, o, a) for op, i, o, a in nodes]
        b.outputs = list(outputs)
        b.out_dtypes = {o: "float32" for o in outputs}
        for (name, dt, _) in inputs:
            if name in outputs:
                b.out_dtypes[name] = dt
        return b

    def branch(self, x):
        """One branch of an If: an op of x (read from outside)."""
        y = self.fresh("br")
        op = self.choice(self.BRANCH_OPS)
        if op == "Square":
            return self.body([], [("Mul", [x, x], [y], {})], [y])
        return self.body([], [(op, [x], [y], {})], [y])

    def t_if(self, x):
        if self.coin(0.25):
            c = self.const(np.array(self.coin()))
        else:
            s = self.node("ReduceSum", [x], {"keepdims": 0}, pool=False)
            c = self.node("Greater", [s, self.const(np.float32(
                self.choice([-1.0, 0.0, 1.0])))], pool=False)
        return self.node("If", [c], {"then_branch": self.branch(x),
                                     "else_branch": self.branch(x)})

    def t_loop(self, x):
        """y <- y * k + x, trip count 1-3 (or none), y's steps as a scan
        output; the condition passed through, or computed from the step
        (a while loop: npuc peels it step by step)."""
        i, c, y, t, yo, co, ys = (self.fresh("lp") for _ in range(7))
        k, lim = self.fresh("lk"), self.fresh("ll")
        nodes = [("Mul", [y, k], [t], {}), ("Add", [t, x], [yo], {})]
        counted = self.coin(0.4)
        nodes.append(("Less", [i, lim], [co], {}) if counted else
                     ("Identity", [c], [co], {}))
        outs = [co, yo]
        if self.coin():
            nodes.append(("Identity", [yo], [ys], {}))
            outs.append(ys)
        body = self.body([(i, "int64", ()), (c, "bool", ()),
                          (y, "float32", self.shape(x))], nodes, outs,
                         {k: np.float32(self.choice([0.5, -0.25, 1.0])),
                          lim: np.array(self.choice([1, 2, 3]), np.int64)})
        body.out_dtypes[co] = "bool"
        trip = "" if counted and self.coin() else \
            self.iconst(self.choice([1, 2, 3, 5]))
        cond = self.const(np.array(True)) if self.coin() else ""
        r = self.node("Loop", [trip, cond, x], {"body": body},
                      nout=len(outs) - 1)
        return r if isinstance(r, str) else r[-1]

    def t_scan(self, x):
        """A running sum over one static axis, its steps (times x) as a
        scan output, each direction and output axis."""
        shp = self.shape(x)
        if len(shp) < 2:
            raise Reject()
        ax = self.r(len(shp))
        if shp[ax] > 6:
            raise Reject()
        st = tuple(d for a, d in enumerate(shp) if a != ax)
        s0 = self.new_input(st)
        si, xt, so, y = (self.fresh("sc") for _ in range(4))
        body = self.body([(si, "float32", st), (xt, "float32", st)],
                         [("Add", [si, xt], [so], {}),
                          ("Mul", [so, xt], [y], {})], [so, y])
        oax = self.choice([0, len(st), -1])
        r = self.node("Scan", [s0, x], {
            "body": body, "num_scan_inputs": 1,
            "scan_input_axes": [ax], "scan_input_directions": [self.r(2)],
            "scan_output_axes": [oax],
            "scan_output_directions": [self.r(2)]}, nout=2)
        return r[self.r(2)]

    def t_control(self):
        """If (on data or a constant), Loop (constant trip count) and
        Scan: npuc unrolls them into the graph."""
        x = self.pick(lambda gen, t: gen.is_float(t) and
                      0 < gen.vals[t].size <= 512, self.shape_any)
        kind = self.choice(["If", "Loop", "Scan"])
        if kind == "If":
            return self.t_if(x)
        if kind == "Loop":
            return self.t_loop(x)
        return self.t_scan(x)

    def t_signal(self):
        """DFT (real or complex, any axis, one-sided, a dft_length that
        pads or cuts, inverse), STFT (window or frame_length) and a mel
        filter bank applied to the magnitudes."""
        kind = self.choice(["DFT", "STFT", "MelWeightMatrix"])
        if kind == "DFT":
            c = self.choice([1, 2])
            lead = tuple(self.choice([1, 2, 3, 5, 8, 12])
                         for _ in range(1 + self.r(2)))
            x = self.new_input(lead + (c,))
            axis = self.r(len(lead))
            ins = [x]
            if self.coin(0.3):
                ins.append(self.iconst(self.choice([4, 6, 9])))
            inv = c == 2 and self.coin()
            return self.node("DFT", ins, {
                "axis": axis - len(lead) - 1 if self.coin() else axis,
                "inverse": int(inv),
                "onesided": int(not inv and self.coin())})
        if kind == "STFT":
            c = self.choice([1, 2])
            length = self.choice([4, 8, 10])
            x = self.new_input((self.choice([1, 2]),
                                length + self.r(24), c))
            step = self.iconst(self.choice([1, 3, 4]))
            # ORT 1.30 windows a complex signal's interleaved floats (not
            # each complex value): a complex signal gets a frame_length
            if c == 1 and self.coin():
                ins = [x, step, self.const(np.hanning(length).astype(
                    np.float32))]
            else:
                ins = [x, step, "", self.iconst(length)]
            return self.node("STFT", ins,
                             {"onesided": int(c == 1 and self.coin())})
        dft = self.choice([8, 16, 32])
        mel = self.node("MelWeightMatrix", [
            self.iconst(self.choice([3, 5, 8])), self.iconst(dft),
            self.iconst(self.choice([8000, 16000])),
            self.const(np.float32(self.choice([0.0, 100.0]))),
            self.const(np.float32(self.choice([3000.0, 4000.0])))],
            pool=False)
        return self.node("MatMul", [self.new_input(
            (self.choice([1, 3]), dft // 2 + 1), lo=0.0), mel])

    def t_conv3d(self):
        """3-D Conv or ConvTranspose (2-D ones per kernel depth): strides,
        dilations, pads, groups and bias drawn per axis."""
        g = self.choice([1, 1, 2])
        c = g * self.choice([1, 2, 3])
        o = g * self.choice([1, 2, 3])
        x = self.new_input((self.choice([1, 2]), c) +
                           tuple(self.choice([3, 4, 5]) for _ in range(3)))
        k = [self.choice([1, 2, 3]) for _ in range(3)]
        st = [self.choice([1, 1, 2]) for _ in range(3)]
        attrs = {"group": g, "strides": st,
                 "dilations": [self.choice([1, 1, 2]) for _ in range(3)],
                 "pads": [self.r(2) for _ in range(6)]}
        convt = self.coin()
        ws = (c, o // g) + tuple(k) if convt else (o, c // g) + tuple(k)
        ins = [x, self.fconst(ws)]
        if self.coin():
            ins.append(self.fconst((o,)))
        if convt:
            attrs["output_padding"] = [self.r(s) for s in st]
        return self.node("ConvTranspose" if convt else "Conv", ins, attrs)

    def t_tfidf(self):
        """TfIdfVectorizer of int tokens in a small vocabulary: random
        pools of 1- to 3-grams, skips, every mode."""
        dt = self.choice(["int32", "int64"])
        shape = (self.choice([1, 2, 3]), self.choice([5, 8, 12])) \
            if self.coin() else (self.choice([4, 9, 16]),)
        x = self.new_input(shape, dt)
        v = self.rng.integers(0, 4, size=shape).astype(dt)
        self.g.feeds[x], self.vals[x] = v, v
        counts, pool, n_grams = [], [], 0
        for n in range(1, self.choice([2, 3]) + 1):
            counts.append(len(pool))
            for _ in range(self.r(4)):
                pool += [int(t) for t in self.rng.integers(0, 4, size=n)]
                n_grams += 1
        if not n_grams:
            raise Reject()
        lo = self.choice([1, len(counts)])
        idx = [int(i) for i in self.rng.permutation(n_grams)]
        attrs = {"mode": self.choice(["TF", "IDF", "TFIDF"]),
                 "min_gram_length": lo, "max_gram_length": len(counts),
                 "max_skip_count": self.choice([0, 1, 3]),
                 "ngram_counts": counts, "ngram_indexes": idx,
                 "pool_int64s": pool}
        if attrs["mode"] != "TF" and self.coin():
            attrs["weights"] = [float(w) for w in
                                self.rng.uniform(0.5, 2.0, n_grams)]
        return self.node("TfIdfVectorizer", [x], attrs)

    def t_bitshift(self):
        """BitShift of unsigned inputs (uint16..uint64 compute in a wider
        signed type), shift counts past the width included, back to
        float for the pool."""
        dt = self.choice(["uint8", "uint16", "uint32", "uint64"])
        bits = np.dtype(dt).itemsize * 8
        shape = self.shape_any(self.choice([1, 2]))
        x = self.new_input(shape, dt)
        # values below 2^63: uint64 computes in int64 (compiler-ir.rst,
        # "Storage types"), larger ones would convert as negative
        v = self.rng.integers(0, 1 << 20, size=shape).astype(dt)
        self.g.feeds[x], self.vals[x] = v, v
        sv = self.rng.integers(0, bits + 4, size=shape[-1:])
        if dt == "uint64":      # a left shift keeps the top bit clear
            sv = np.where(sv < 44, sv, 64 + sv % 4)
        s = self.const(sv.astype(dt))
        y = self.node("BitShift", [x, s], {
            "direction": self.choice(["LEFT", "RIGHT"])})
        return self.node("Cast", [y], {"to": "float32"})

    def t_det(self):
        m = self.choice([1, 2, 3, 4])
        lead = tuple(self.choice([1, 2, 3]) for _ in range(self.r(3)))
        return self.node("Det", [self.new_input(lead + (m, m))])

    def t_einsum(self):
        eq = self.choice(self.EINSUMS)
        terms = eq.split("->")[0].split(",")
        ext = {c: self.choice([1, 2, 3, 4, 5]) for c in "bhijkqd"}
        lead = [self.choice([1, 2, 3])]
        ins = []
        for t in terms:
            s = tuple(lead if t.startswith("...") else []) + \
                tuple(ext[c] for c in t.replace("...", ""))
            ins.append(self.new_input(s))
        return self.node("Einsum", ins, {"equation": eq})

    def t_qlinear(self):
        """QLinearConv or QLinearMatMul on a quantized activation, its
        weights, scales and zero points constants (QOperator form)."""
        conv = self.coin()
        x = self.pick(Gen.f4, self.shape_nchw) if conv else \
            self.pick(Gen.f_rank(2), lambda: (self.choice(SPATIAL),
                                             self.choice(CHANNELS)))
        s = self.shape(x)
        dt = self.choice([np.uint8, np.int8])
        sx = self.const(np.float32(self.choice([0.02, 0.05])))
        zx = self.const(np.array(128 if dt == np.uint8 else 0, dtype=dt))
        xq = self.node("QuantizeLinear", [x, sx, zx])
        co = self.choice([2, 4, 16])
        k = self.choice([1, 3]) if conv else 1
        wshape = (co, s[1], k, k) if conv else (s[1], co)
        w = self.const(self.rng.integers(-100, 100, size=wshape).astype(
            np.int8))
        per = self.coin(0.5)
        sw = self.const(self.rng.uniform(0.005, 0.02, size=(co,)).astype(
            np.float32) if per else np.float32(0.01))
        zw = self.const(np.zeros(co if per else (), dtype=np.int8))
        sy = self.const(np.float32(self.choice([0.05, 0.1, 0.4])))
        zy = self.const(np.array(self.choice([0, 100]), dtype=dt))
        ins = [xq, sx, zx, w, sw, zw, sy, zy]
        attrs = {}
        if conv:
            attrs = {"kernel_shape": [k, k], "pads": [k // 2] * 4}
            if self.coin(0.5):
                ins.append(self.const(self.rng.integers(
                    -500, 500, size=(co,)).astype(np.int32)))
        y = self.node("QLinearConv" if conv else "QLinearMatMul", ins,
                      attrs)
        return self.node("DequantizeLinear", [y, sy, zy])

    def t_trilu(self):
        x = self.pick(Gen.f_ge2, lambda: self.shape_any(2))
        ins = [x]
        if self.coin(0.6):
            ins.append(self.iconst(self.r(5) - 2))
        attrs = {} if self.coin() else {"upper": self.r(2)}
        return self.node("Trilu", ins, attrs)

    SMALL = ["Sign", "Round", "Mod", "IsNaN", "IsInf", "Celu", "Shrink",
             "Hardmax", "Tile", "OneHot", "Sinh", "Cosh"]

    def t_small(self):
        """The small ops of real exports (decomposed by the compiler)."""
        op = self.choice(self.SMALL)
        x = self.pick_f()
        s = self.shape(x)
        if op in ("Sign", "Round", "Sinh", "Cosh"):
            if op == "Round" and self.coin():
                x = self.node("Mul", [x, self.const(np.float32(
                    self.choice([2.5, 4.0, 10.0])))])
            return self.node(op, [x])
        if op in ("IsNaN", "IsInf"):
            # a Div that makes inf and NaN (0/0) for some elements
            d = self.node("Div", [x, self.node("Floor", [x])],
                          pool=False, finite=False) if self.coin() else x
            attrs = {}
            if op == "IsInf" and self.coin():
                attrs = {"detect_positive": self.r(2),
                         "detect_negative": self.r(2)}
            c = self.node(op, [d], attrs)
            return self.node("Where", [c, self.const(np.float32(1.5)), x])
        if op == "Celu":
            attrs = {"alpha": self.choice([1.0, 0.5, 2.0])} \
                if self.coin() else {}
            return self.node(op, [x], attrs)
        if op == "Shrink":
            attrs = {}
            if self.coin():
                attrs["lambd"] = self.choice([0.25, 0.5, 1.0])
            if self.coin():
                attrs["bias"] = self.choice([0.0, 0.5, -0.25])
            return self.node(op, [x], attrs)
        if op == "Mod":
            if self.coin():
                xi = self.node("Cast", [self.node("Mul", [x, self.const(
                    np.float32(5))])], {"to": "int32"})
                yi = self.iconst_of(self.bcast_of(s), np.int32)
                r = self.node(op, [xi, yi], {"fmod": self.r(2)})
                return self.node("Cast", [r], {"to": "float32"})
            y = self.positive(self.other_operand(x), 0.25)
            if self.coin():
                y = self.node("Neg", [y])
            return self.node(op, [x, y], {"fmod": 1})
        if op == "Hardmax":
            return self.node(op, [x], {"axis": self.r(2 * len(s)) -
                                       len(s)} if self.coin(0.7) else {})
        if op == "Tile":
            rep = [self.choice([1, 1, 2, 3]) for _ in s]
            return self.node(op, [x, self.iconst(rep)])
        # OneHot of integer indices computed from x
        ind = self.node("Cast", [self.node("Mul", [x, self.const(
            np.float32(2))])], {"to": self.choice(["int64", "int32"])})
        depth = self.choice([1, 3, 4, 5])
        vals = self.const(np.array(self.choice([[0, 1], [-1.5, 2.0]]),
                                   dtype=np.float32))
        attrs = {"axis": self.r(2 * len(s) + 2) - len(s) - 1} \
            if self.coin(0.7) else {}
        return self.node(op, [ind, self.iconst(depth), vals], attrs)

    def iconst_of(self, shape, dtype):
        """A constant of nonzero small integers of shape."""
        v = self.rng.integers(1, 6, size=shape) * \
            self.rng.choice([-1, 1], size=shape)
        return self.const(np.asarray(v, dtype=dtype))

    def t_convt(self):
        """ConvTranspose (decomposed into a zero-stuffing Pad and a Conv)
        with random stride, dilation, pads, output_padding, groups, or an
        output_shape / auto_pad."""
        x = self.pick_f4()
        n, c, h, w = self.shape(x)
        group = self.choice([1, 1, 2]) if c % 2 == 0 else 1
        mg = self.choice([1, 2, 3, 4])
        k = [self.choice([1, 2, 3, 4]), self.choice([1, 2, 3])]
        st = [self.choice([1, 2, 2, 3]), self.choice([1, 2])]
        dl = [self.choice([1, 1, 2]), 1]
        attrs = {}
        if st != [1, 1]:
            attrs["strides"] = st
        if dl != [1, 1]:
            attrs["dilations"] = dl
        if group > 1:
            attrs["group"] = group
        # ORT 1.30 gives SAME a negative total pad when a kernel span is
        # shorter than its stride (a [1, 1] output where ONNX says input x
        # stride): SAME only where every span reaches its stride
        if self.coin(0.15) and all(dl[i] * (k[i] - 1) + 1 >= st[i]
                                   for i in range(2)):
            attrs["auto_pad"] = self.choice(["SAME_UPPER", "SAME_LOWER"])
        elif self.coin(0.15):
            full = [st[0] * (h - 1) + dl[0] * (k[0] - 1) + 1,
                    st[1] * (w - 1) + dl[1] * (k[1] - 1) + 1]
            attrs["output_shape"] = [max(1, full[0] - self.r(2)),
                                     max(1, full[1] - self.r(2))]
        else:
            span = [dl[i] * (k[i] - 1) + 1 for i in range(2)]
            attrs["pads"] = [self.r(span[0]), self.r(span[1]),
                             self.r(span[0]), self.r(span[1])]
            if self.coin(0.3):
                attrs["output_padding"] = [self.r(max(st[0], dl[0])),
                                           self.r(max(st[1], dl[1]))]
        scale = 1.0 / math.sqrt(max(1, c // group * k[0] * k[1]))
        wt = self.fconst((c, mg, k[0], k[1]), -scale * 1.7, scale * 1.7)
        ins = [x, wt]
        if self.coin(0.5):
            ins.append(self.fconst((mg * group,), -0.5, 0.5))
        return self.node("ConvTranspose", ins, attrs)

    def t_rnn(self):
        """RNN, LSTM or GRU (the device's RNN task) over a [T, B, I] input
        with random direction, layout, clip, initial states (computed or
        constant), peepholes and linear_before_reset; reads Y, Y_h or
        Y_c."""
        op = self.choice(["RNN", "LSTM", "GRU"])
        layout = self.r(2) if self.coin(0.3) else 0
        x = self.pick(Gen.f_rank(3), lambda: (
            self.choice([1, 2, 5, 7]), self.choice([1, 2, 3]),
            self.choice([1, 3, 4, 8])))
        s = self.shape(x)
        tl, bs = (s[1], s[0]) if layout else (s[0], s[1])
        i_sz = s[2]
        hid = self.choice([1, 2, 5, 8])
        g = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
        direction = self.choice(["forward", "reverse", "bidirectional"])
        d = 2 if direction == "bidirectional" else 1
        sc = 1.0 / math.sqrt(max(i_sz, hid))
        ins = [x, self.fconst((d, g * hid, i_sz), -sc * 1.5, sc * 1.5),
               self.fconst((d, g * hid, hid), -sc * 1.5, sc * 1.5)]
        attrs = {"hidden_size": hid}
        if direction != "forward":
            attrs["direction"] = direction
        if layout:
            attrs["layout"] = 1
        if self.coin(0.2):
            attrs["clip"] = self.choice([0.5, 1.5, 3.0])
        if op == "GRU" and self.coin():
            attrs["linear_before_reset"] = 1
        st = (bs, d, hid) if layout else (d, bs, hid)
        extra = []
        if self.coin(0.7):
            extra.append(self.fconst((d, 2 * g * hid), -0.5, 0.5))
        else:
            extra.append("")
        extra.append("")            # sequence_lens
        if self.coin(0.5):
            h0 = self.pick(lambda gen, t: gen.is_float(t) and
                           gen.shape(t) == st, lambda: st) \
                if self.coin() else self.fconst(st, -1.0, 1.0)
            extra.append(h0)
        else:
            extra.append("")
        if op == "LSTM":
            extra.append(self.fconst(st, -1.0, 1.0) if self.coin() else "")
            extra.append(self.fconst((d, 3 * hid), -0.5, 0.5)
                         if self.coin(0.3) else "")
        while extra and extra[-1] == "":
            extra.pop()
        ins += extra
        nout = 3 if op == "LSTM" else 2
        outs = self.node(op, ins, attrs, nout=nout)
        which = self.r(nout)
        return outs[which]

    MORE = ["DepthToSpace", "SpaceToDepth", "InstanceNormalization",
            "MeanVarianceNormalization", "LRN", "ArgMax", "ArgMin",
            "GatherElements", "GatherND", "CumSum"]

    def t_more(self):
        """Issue 18's decomposed ops (legalize_more.c)."""
        op = self.choice(self.MORE)
        if op in ("DepthToSpace", "SpaceToDepth", "InstanceNormalization",
                  "MeanVarianceNormalization", "LRN"):
            x = self.pick_f4()
            n, c, h, w = self.shape(x)
            if op == "DepthToSpace":
                bs = self.choice([b for b in (1, 2, 3) if c % (b * b) == 0])
                attrs = {"blocksize": bs}
                if self.coin():
                    attrs["mode"] = self.choice(["DCR", "CRD"])
                return self.node(op, [x], attrs)
            if op == "SpaceToDepth":
                bs = self.choice([b for b in (1, 2, 3)
                                  if h % b == 0 and w % b == 0])
                return self.node(op, [x], {"blocksize": bs})
            if op == "InstanceNormalization":
                attrs = {"epsilon": self.choice([1e-5, 1e-3])} \
                    if self.coin() else {}
                return self.node(op, [x, self.fconst((c,), 0.5, 1.5),
                                      self.fconst((c,), -0.5, 0.5)], attrs)
            if op == "MeanVarianceNormalization":
                attrs = {"axes": self.choice([[0, 2, 3], [2, 3], [1],
                                              [1, 2, 3]])} \
                    if self.coin(0.6) else {}
                return self.node(op, [x], attrs)
            attrs = {"size": self.choice([1, 2, 3, 5])}
            if self.coin():
                attrs.update(alpha=self.choice([1e-4, 0.01, 0.5]),
                             beta=self.choice([0.75, 0.5, 1.0]),
                             bias=self.choice([1.0, 2.0]))
            return self.node(op, [x], attrs)
        x = self.pick_f()
        s = self.shape(x)
        r = len(s)
        if op in ("ArgMax", "ArgMin"):
            attrs = {"axis": self.r(2 * r) - r} if self.coin(0.8) else {}
            if self.coin(0.4):
                attrs["keepdims"] = self.r(2)
            if self.coin(0.3):
                attrs["select_last_index"] = 1
                # ties: round so that equal values occur
                x = self.node("Floor", [x])
            y = self.node(op, [x], attrs)
            return self.node("Cast", [y], {"to": "float32"})
        if op == "GatherElements":
            ax = self.r(r)
            ishape = tuple(self.choice([1, d, d]) if i != ax else
                           self.choice([1, 2, 3, 5]) for i, d in
                           enumerate(s))
            iv = self.rng.integers(-s[ax], s[ax], size=ishape)
            return self.node(op, [x, self.const(iv.astype(
                self.choice([np.int64, np.int32])))],
                {"axis": ax - (r if self.coin() else 0)})
        if op == "GatherND":
            nb = self.r(r) if self.coin(0.4) else 0
            k = 1 + self.r(r - nb)
            lead = tuple(s[:nb]) + tuple(self.choice([1, 2, 3])
                                         for _ in range(self.r(3)))
            iv = np.stack([self.rng.integers(-s[nb + j], s[nb + j],
                                             size=lead)
                           for j in range(k)], axis=-1)
            dt = self.choice([np.int64, np.int32]) if nb else np.int64
            attrs = {"batch_dims": nb} if nb else {}
            return self.node(op, [x, self.const(iv.astype(dt))], attrs)
        attrs = {}
        if self.coin(0.4):
            attrs["exclusive"] = 1
        if self.coin(0.4):
            attrs["reverse"] = 1
        if self.coin(0.3):
            xi = self.node("Cast", [self.node("Mul", [x, self.const(
                np.float32(4))])], {"to": "int32"})
            y = self.node(op, [xi, self.iconst(self.r(r))], attrs)
            return self.node("Cast", [y], {"to": "float32"})
        return self.node(op, [x, self.iconst(self.r(2 * r) - r)], attrs)

    def t_topk(self):
        """TopK (the device's TOPK task + a Gather for the values)."""
        x = self.pick_f()
        s = self.shape(x)
        r = len(s)
        ax = self.r(r)
        k = 1 + self.r(s[ax])
        attrs = {}
        if self.coin(0.7):
            attrs["axis"] = ax - (r if self.coin() else 0)
        elif ax != r - 1:
            attrs["axis"] = ax
        if self.coin(0.4):
            attrs["largest"] = 0
        if self.coin(0.25):
            x = self.node("Cast", [self.node("Mul", [x, self.const(
                np.float32(3))])], {"to": self.choice(["int32", "int64"])})
        vals, idx = self.node("TopK", [x, self.iconst([k])], attrs, nout=2)
        if self.coin():
            return self.node("Cast", [idx], {"to": "float32"})
        if self.is_float(vals):
            return vals
        return self.node("Cast", [vals], {"to": "float32"})

    def t_count(self):
        """NonZero, NonMaxSuppression or Unique: outputs whose extent the
        data decides, so graph outputs that no node reads (pool=False)."""
        if self.coin(0.3):
            # few distinct values (and rows): small integers, as floats
            # most of the time (exact, so never fragile)
            shape = tuple(1 + self.r(5) for _ in range(1 + self.r(3)))
            x = self.new_input(shape, self.choice(["int64", "int32"]))
            if self.coin(0.7):
                x = self.node("Cast", [x], {"to": "float32"})
            attrs = {}
            r = len(self.shape(x))
            if r and self.coin():
                attrs["axis"] = self.r(r) - (r if self.coin() else 0)
            if self.coin(0.4):
                attrs["sorted"] = 0
            outs = self.node("Unique", [x], attrs, nout=4, pool=False)
            self.counted += [outs[0], outs[1], outs[3]]
            y = outs[2]         # inverse_indices: static, of X's size
            self.counted.append(y)
            return y
        if self.coin():
            x = self.pick_f()
            if self.coin(0.6):
                x = self.node("Relu", [x])      # exact zeros
            elif self.coin():
                x = self.node("Greater", [x, self.const(np.float32(0))])
            y = self.node("NonZero", [x], pool=False)
            if len(self.shape(x)) == 1 and self.coin():
                # [1, n]: rows-independent ops carry the extent on
                y = self.node("Cast", [y], {"to": "float32"}, pool=False)
                y = self.node("Mul", [y, self.const(np.float32(0.5))],
                              pool=False)
        else:
            b, c, n = 1 + self.r(2), 1 + self.r(3), 1 + self.r(12)
            boxes = self.new_input((b, n, 4), lo=0.0, hi=8.0)
            scores = self.new_input((b, c, n), lo=0.0, hi=1.0)
            ins = [boxes, scores, self.iconst([1 + self.r(n + 1)]),
                   self.const(np.float32(self.choice([0.0, 0.3, 0.5, 0.7,
                                                      1.0])))]
            if self.coin(0.6):
                ins.append(self.const(np.float32(self.choice([0.2, 0.5]))))
            attrs = {"center_point_box": 1} if self.coin(0.3) else {}
            y = self.node("NonMaxSuppression", ins, attrs, pool=False)
            if self.coin(0.6):
                # a detector's post-processing: the kept boxes, gathered
                # by the selection (the extent carried on, count_propagate.c)
                self.counted.append(y)
                ix = self.node("Gather", [y, self.const(np.array(2, np.int64))],
                               {"axis": 1}, pool=False)
                flat = self.node("Reshape", [boxes, self.iconst([-1, 4])],
                                 pool=False)
                y = self.node("Gather", [flat, ix], {"axis": 0}, pool=False)
                if self.coin():
                    y = self.node(self.choice(["Mul", "Add"]),
                                  [y, self.fconst((4,))], pool=False)
        self.counted.append(y)
        return y

    def t_scatter(self):
        """ScatterND / ScatterElements (a COPY and the device's SCATTER)
        with computed updates and data; unique indices unless a reduction
        makes the order irrelevant (add, max, min)."""
        x = self.pick_f()
        s = self.shape(x)
        r = len(s)
        red = self.choice(["none", "none", "add", "mul", "max", "min"])
        attrs = {} if red == "none" else {"reduction": red}
        if self.coin():
            k = 1 + self.r(r)
            cells = int(np.prod(s[:k]))
            m = 1 + self.r(min(cells, 4))
            pick = self.rng.choice(cells, size=m, replace=red != "none"
                                   and red != "mul")
            iv = np.stack(np.unravel_index(pick, s[:k]), axis=-1)
            iv = np.where(self.rng.random(iv.shape) < 0.3,
                          iv - np.array(s[:k]), iv)
            ushape = (m,) + s[k:]
            upd = self.fconst(ushape, -2.0, 2.0) if self.coin() else \
                self.node("Neg", [self.pick(
                    lambda gen, t: gen.is_float(t) and gen.shape(t) ==
                    ushape, lambda: ushape)])
            return self.node("ScatterND", [x, self.const(iv.astype(
                np.int64)), upd], attrs)
        ax = self.r(r)
        ish = tuple(min(d, self.choice([1, 2, d])) if i != ax else
                    self.choice([1, 2]) for i, d in enumerate(s))
        if red in ("none", "mul"):
            if ish[ax] > s[ax]:
                ish = ish[:ax] + (s[ax],) + ish[ax + 1:]
            # unique positions along the axis per line
            iv = np.stack([self.rng.permutation(s[ax])[:ish[ax]]
                           for _ in range(int(np.prod(ish)) //
                                          ish[ax])], axis=0)
            iv = np.moveaxis(iv.reshape(tuple(d for i, d in enumerate(ish)
                                              if i != ax) + (ish[ax],)),
                             -1, ax)
        else:
            iv = self.rng.integers(0, s[ax], size=ish)
        attrs["axis"] = ax - (r if self.coin() else 0)
        return self.node("ScatterElements", [x, self.const(iv.astype(
            self.choice([np.int64, np.int32]))), self.fconst(ish, -2.0,
                                                              2.0)], attrs)

    def t_trig(self):
        """Sin ... Atanh (the device's MATH task), arguments mapped into
        each function's domain (Tan away from its poles)."""
        op = self.choice(["Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
                          "Asinh", "Acosh", "Atanh"])
        x = self.pick_f()
        if op in ("Asin", "Acos", "Atanh"):
            x = self.node("Mul", [self.node("Tanh", [x]),
                                  self.const(np.float32(0.95))])
        elif op == "Acosh":
            x = self.node("Add", [self.node("Abs", [x]),
                                  self.const(np.float32(1.0))])
        elif op == "Tan":
            x = self.node("Mul", [self.node("Tanh", [x]),
                                  self.const(np.float32(1.4))])
        return self.node(op, [x])

    def t_gen(self):
        """EyeLike, the window functions and Compress (constant
        parameters), combined with a computed tensor."""
        op = self.choice(["EyeLike", "HannWindow", "HammingWindow",
                          "BlackmanWindow", "Compress", "ReverseSequence",
                          "MaxUnpool"])
        x = self.pick_f()
        s = self.shape(x)
        if op == "ReverseSequence":
            x = self.pick(Gen.f_ge2, lambda: (3, 4, 2))
            s = self.shape(x)
            ta = self.r(2)
            ba = 1 - ta
            lens = self.rng.integers(1, s[ta] + 1, size=s[ba])
            return self.node(op, [x, self.const(lens.astype(np.int64))],
                             {"batch_axis": ba, "time_axis": ta})
        if op == "MaxUnpool":
            x = self.pick_f4()
            n, c, h, w = self.shape(x)
            # each value at a distinct position of its 2x2 window
            oh, ow = 2 * h, 2 * w
            ih = 2 * np.arange(h)[:, None] + self.rng.integers(
                0, 2, size=(n, c, h, w))
            iw = 2 * np.arange(w)[None, :] + self.rng.integers(
                0, 2, size=(n, c, h, w))
            base = (np.arange(n)[:, None, None, None] * c +
                    np.arange(c)[None, :, None, None]) * oh * ow
            iv = base + ih * ow + iw
            return self.node(op, [x, self.const(iv.astype(np.int64))],
                             {"kernel_shape": [2, 2], "strides": [2, 2]})
        if op == "EyeLike":
            x2 = self.pick(Gen.f_rank(2), lambda: (self.choice([1, 3, 4]),
                                                    self.choice([2, 5])))
            attrs = {"k": self.r(5) - 2} if self.coin() else {}
            e = self.node(op, [x2], attrs)
            return self.node("Add", [x2, e])
        if op != "Compress":
            n = s[-1]
            attrs = {"periodic": self.r(2)} if self.coin() else {}
            if n < 2 and attrs.get("periodic") == 0:
                attrs["periodic"] = 1
            w = self.node(op, [self.iconst(n)], attrs)
            return self.node("Mul", [x, w])
        ax = self.r(len(s)) if self.coin(0.7) else None
        ln = s[ax] if ax is not None else int(np.prod(s))
        cond = self.rng.random(ln) < 0.6
        if not cond.any():
            cond[0] = True
        attrs = {} if ax is None else {"axis": ax}
        return self.node(op, [x, self.const(cond)], attrs)

    def t_shape_chain(self):
        x = self.pick(Gen.f_ge2, self.shape_any)
        s = self.shape(x)
        form = self.r(4)
        if form == 0:
            # Shape -> Gather -> Concat -> Reshape (flatten the tail)
            sh = self.node("Shape", [x])
            d0 = self.node("Gather", [sh, self.iconst([0])], {"axis": 0})
            tgt = self.node("Concat", [d0, self.iconst([-1])], {"axis": 0})
            return self.node("Reshape", [x, tgt])
        if form == 1:
            sh = self.node("Shape", [x])
            z = self.node("ConstantOfShape", [sh], {"value": np.array(
                [self.choice([0.5, 1.0, -2.0])], dtype=np.float32)})
            return self.node("Add", [x, z])
        if form == 2:
            n = s[-1]
            start = self.choice([0.0, 1.0, -2.0])
            delta = self.choice([1.0, 0.5, -0.25])
            rg = self.node("Range", [self.const(np.float32(start)),
                                     self.const(np.float32(start + n *
                                                           delta)),
                                     self.const(np.float32(delta))])
            if self.vals[rg].shape != (n,):
                raise Reject()
            return self.node("Mul", [x, rg])
        sz = self.node("Size", [x])
        f = self.node("Cast", [sz], {"to": "float32"})
        return self.node("Div", [x, f])

    def t_cast(self):
        x = self.pick_f()
        form = self.r(5)
        if form == 0:
            h = self.node("Cast", [x], {"to": "float16"})
            return self.node("Cast", [h], {"to": "float32"})
        if form == 1:
            i = self.node("Cast", [x], {"to": self.choice(["int32",
                                                           "int64"])})
            if self.coin(0.5):
                i = self.node(self.choice(["Add", "Mul", "Max", "Sub"]),
                              [i, self.const(np.array(self.r(5) - 2,
                                                      dtype=self.dts[i]))])
            if self.coin(0.3):
                i = self.node(self.choice(["Neg", "Abs", "Relu"]), [i])
            return self.node("Cast", [i], {"to": "float32"})
        if form == 2:
            i = self.node("Cast", [x], {"to": "int32"})
            return self.node("CastLike", [i, x])
        if form == 3:
            b = self.node("Cast", [x], {"to": "bool"})
            return self.node("Where", [b, x, self.const(np.float32(1))])
        y = self.node("Cast", [x], {"to": "float32"})
        return y

    def t_qdq(self):
        x = self.pick_f()
        s = self.shape(x)
        dt = self.choice([np.uint8, np.int8])
        per_ch = len(s) >= 2 and self.coin(0.4)
        if per_ch:
            ax = 1
            c = s[ax]
            scale = self.rng.uniform(0.01, 0.05, size=(c,)).astype(
                np.float32)
            zp = (self.rng.integers(100, 150, size=(c,)) if dt == np.uint8
                  else self.rng.integers(-10, 10, size=(c,))).astype(dt)
            attrs = {"axis": ax}
        else:
            scale = np.float32(self.choice([0.02, 0.03125, 0.05]))
            zp = np.array(128 if dt == np.uint8 else 0, dtype=dt)
            attrs = {}
        sc = self.const(scale)
        z = self.const(zp)
        q = self.node("QuantizeLinear", [x, sc, z], attrs)
        if self.coin(0.3):
            q = self.node("Identity", [q])
        return self.node("DequantizeLinear", [q, sc, z], attrs)

    def t_fold(self):
        """A constant-only subgraph feeding a computation."""
        x = self.pick_f()
        s = self.bcast_of(self.shape(x))
        a = self.fconst(s)
        b = self.fconst(s)
        c = self.node(self.choice(["Add", "Mul", "Sub", "Max"]), [a, b])
        if self.coin():
            c = self.node(self.choice(["Relu", "Neg", "Sigmoid"]), [c])
        return self.node(self.choice(["Add", "Mul"]), [x, c])

    def t_cse(self):
        """The same node twice (CSE merges them)."""
        cands = [n for n in self.g.nodes if len(n.outputs) == 1 and
                 n.outputs[0] in self.pool and self.is_float(n.outputs[0])]
        if not cands:
            raise Reject()
        n = self.choice(cands)
        y = self.node(n.op, list(n.inputs), dict(n.attrs))
        return self.node(self.choice(["Add", "Sub", "Mul"]),
                         [n.outputs[0], y])

    def t_branches(self):
        """Independent branches from one tensor, joined (streams)."""
        x = self.pick_f4() if self.coin(0.6) else self.pick_f()
        outs = []
        for _ in range(self.choice([2, 2, 3])):
            y = x
            for _ in range(self.choice([1, 2, 3])):
                if self.vals[y].ndim == 4 and self.coin(0.6):
                    y = self.t_conv(y, then_bn=False)
                elif self.coin(0.5):
                    y = self.t_unary(y)
                else:
                    y = self.t_binary(y, self.choice(["Add", "Mul", "Max"]))
            outs.append(y)
        same = [o for o in outs if self.shape(o) == self.shape(outs[0])]
        if len(same) >= 2 and self.coin(0.7):
            if len(same) == 2:
                return self.node(self.choice(["Add", "Mul", "Max"]), same)
            return self.node(self.choice(["Sum", "Max", "Min", "Mean"]),
                             same)
        return outs[-1]

    def t_conv_chain(self):
        """Conv/BN/pool chains: what the layout pass turns NC1HWC0."""
        c = self.choice([3, 17, 33, 16, 8])
        x = self.pick(lambda g, t: Gen.f4(g, t) and g.shape(t)[1] == c,
                      lambda: (1, c, self.choice([4, 5, 7, 8]),
                               self.choice([4, 5, 6, 8])), p_new=0.5)
        y = x
        for _ in range(self.choice([2, 3, 4])):
            op = self.r(5)
            if op <= 1:
                y = self.t_conv(y)
            elif op == 2:
                y = self.t_bn(y)
            elif op == 3:
                y = self.t_act(y)
            else:
                y = self.t_binary(y, self.choice(["Add", "Mul"]))
        if self.coin(0.4):
            # leave the NC1HWC0 region through a reshape
            y = self.node("Flatten", [y], {"axis": 1})
        return y

    TEMPLATES = [
        ("t_unary", 10), ("t_binary", 12), ("t_variadic", 4),
        ("t_compare", 4), ("t_conv", 8), ("t_bn", 2), ("t_pool", 5),
        ("t_gemm", 5), ("t_matmul", 6), ("t_softmax", 3),
        ("t_layernorm", 3), ("t_gelu", 2), ("t_attention", 2),
        ("t_reduce", 6), ("t_reshape", 5), ("t_transpose", 4),
        ("t_concat", 4), ("t_split", 3), ("t_slice", 4), ("t_gather", 3),
        ("t_expand", 2), ("t_pad", 3), ("t_resize", 3), ("t_trilu", 1),
        ("t_small", 4), ("t_convt", 2), ("t_rnn", 2), ("t_more", 4),
        ("t_topk", 2), ("t_scatter", 2), ("t_trig", 2), ("t_count", 1),
        ("t_gen", 2), ("t_grid_sample", 2), ("t_roi_align", 1),
        ("t_einsum", 2), ("t_qlinear", 2), ("t_det", 1), ("t_integer", 2),
        ("t_shape_chain", 2), ("t_cast", 3), ("t_qdq", 2), ("t_fold", 2),
        ("t_cse", 2), ("t_branches", 4), ("t_conv_chain", 4),
        ("t_control", 2), ("t_signal", 2), ("t_bitshift", 1),
        ("t_tfidf", 1), ("t_conv3d", 1),
    ]

    def build(self, only=None):
        names = [t for t, _ in self.TEMPLATES if only is None or t in only]
        w = [wt for t, wt in self.TEMPLATES if only is None or t in only]
        target = self.min_nodes + self.r(self.max_nodes - self.min_nodes + 1)
        tries = 0
        while len(self.g.nodes) < target and tries < 200:
            tries += 1
            t = self.choice(names, w)
            try:
                with self.txn():
                    getattr(self, t)()
                    if len(self.g.nodes) > self.max_nodes + 20:
                        raise Reject()
            except Reject:
                continue
        if not self.g.nodes:
            raise Reject()
        self.pick_outputs()
        return self.g

    def pick_outputs(self):
        g = self.g
        produced = [o for n in g.nodes for o in n.outputs if o]
        read = {i for n in g.nodes for i in n.inputs}
        dangling = [o for o in produced if o not in read]
        outs = dangling[-4:]
        if len(dangling) > 4:
            # the rest stays dead code for DCE; keep the latest ones
            pass
        inner = [o for o in produced if o in read and o not in outs and
                 self.vals[o].size > 0]
        if inner and self.coin(0.2):
            outs.append(self.choice(inner))
        outs += [o for o in self.counted if o not in outs]
        outs = [o for o in outs if self.vals[o].size > 0]
        if not outs:
            raise Reject()
        g.outputs = outs


def generate(seed, max_nodes=12, only=None):
    """A graph for seed: (graph, dtypes of every tensor)."""
    for attempt in range(50):
        gen = Gen(seed * 64 + attempt, max_nodes=max_nodes)
        try:
            g = gen.build(only)
        except Reject:
            continue
        vals, dts, fragile = dt_ref.evaluate(g, g.feeds)
        if fragile:
            continue
        return g, dts
    raise RuntimeError("seed %d: no valid graph in 50 attempts" % seed)
