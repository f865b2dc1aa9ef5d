#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A BERT-like encoder exported with symbolic batch and sequence, and
torch's outputs for a list of sequence lengths (the shape cache test).

The encoder is tests/models/export_models.py's bert_encoder at a smaller
size, the position table sliced to the input's length, so that one ONNX
file runs every (batch, sequence) up to MAX_SEQ.

Writes OUT/model.onnx and OUT/cases.bin: u32 count, then per case u32
batch, u32 seq, int64 ids[batch * seq], float32 logits[batch * CLASSES];
and, for npu-run, OUT/BxS/in/input_ids.npy and OUT/BxS/ref/logits.npy.
Usage: bert_dyn.py OUT SEQ [SEQ ...]   (batch 1; "BxS" for another batch)
"""

import os
import struct
import sys

VOCAB, HIDDEN, HEADS, FFN, LAYERS, MAX_SEQ, CLASSES = 100, 32, 2, 64, 2, 64, 4
SEED = 20240229


def build(torch):
    nn = torch.nn

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(VOCAB, HIDDEN)
            self.pos = nn.Parameter(torch.randn(1, MAX_SEQ, HIDDEN) * 0.02)
            self.norm = nn.LayerNorm(HIDDEN, eps=1e-12)
            layer = nn.TransformerEncoderLayer(
                HIDDEN, HEADS, FFN, dropout=0.0, activation="gelu",
                batch_first=True, layer_norm_eps=1e-12)
            self.encoder = nn.TransformerEncoder(layer, LAYERS,
                                                 enable_nested_tensor=False)
            self.pool = nn.Linear(HIDDEN, HIDDEN)
            self.cls = nn.Linear(HIDDEN, CLASSES)

        def forward(self, ids):
            h = self.norm(self.tok(ids) + self.pos[:, :ids.shape[1]])
            h = self.encoder(h)
            return self.cls(torch.tanh(self.pool(h[:, 0])))

    return Bert()


def main():
    import numpy as np
    import torch
    torch.set_num_threads(1)
    out = sys.argv[1]
    cases = []
    for a in sys.argv[2:]:
        b, s = a.split("x") if "x" in a else ("1", a)
        cases.append((int(b), int(s)))
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    model = build(torch).eval()
    ids = torch.randint(0, VOCAB, (1, 8), generator=gen, dtype=torch.int64)
    tmp = os.path.join(out, "model.onnx.tmp")
    torch.onnx.export(model, (ids,), tmp, opset_version=14,
                      input_names=["input_ids"], output_names=["logits"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "seq"},
                                    "logits": {0: "batch"}})
    os.replace(tmp, os.path.join(out, "model.onnx"))
    with open(os.path.join(out, "cases.bin.tmp"), "wb") as f:
        f.write(struct.pack("<I", len(cases)))
        for b, s in cases:
            x = torch.randint(0, VOCAB, (b, s), generator=gen,
                              dtype=torch.int64)
            y = model(x).detach().numpy().astype(np.float32)
            f.write(struct.pack("<II", b, s))
            f.write(x.numpy().astype("<i8").tobytes())
            f.write(y.astype("<f4").tobytes())
            d = os.path.join(out, "%dx%d" % (b, s))
            for sub in ("in", "ref"):
                os.makedirs(os.path.join(d, sub), exist_ok=True)
            np.save(os.path.join(d, "in", "input_ids.npy"), x.numpy())
            np.save(os.path.join(d, "ref", "logits.npy"), y)
    os.replace(os.path.join(out, "cases.bin.tmp"),
               os.path.join(out, "cases.bin"))


if __name__ == "__main__":
    main()
