// SPDX-License-Identifier: MIT
//
// ONNX Runtime (onnxruntime-node, CPU) as a server for the differential
// fuzzer: one JSON request per line on stdin, one JSON reply per line on
// stdout, so that node and the runtime start once per campaign.
//
// Request:  {"model": PATH, "inputs": [{"name", "dtype", "shape", "file"}],
//            "outputs": [NAME...], "outdir": DIR}
//   each input file holds the raw little-endian bytes of the tensor.
// Reply:    {"ok": true, "outputs": [{"name", "dtype", "shape", "file"}]}
//           or {"ok": false, "error": MESSAGE}
//   each output is written raw to outdir/ort_K.bin.
//
// Run with NODE_PATH pointing at the node_modules that holds
// onnxruntime-node (make difftest-ort installs it into build/ort).
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const ort = require('onnxruntime-node');

const ARRAYS = {
  float32: Float32Array, int32: Int32Array, int64: BigInt64Array,
  int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
  float16: Uint16Array,
};

function readTensor(inp) {
  const buf = fs.readFileSync(inp.file);
  const Ctor = ARRAYS[inp.dtype];
  if (!Ctor)
    throw new Error('dtype ' + inp.dtype + ' not handled');
  const copy = new ArrayBuffer(buf.length);
  new Uint8Array(copy).set(buf);
  const data = new Ctor(copy);
  return new ort.Tensor(inp.dtype, data, inp.shape);
}

async function handle(req) {
  const opts = { executionProviders: ['cpu'], intraOpNumThreads: 1,
                 interOpNumThreads: 1, graphOptimizationLevel: 'all' };
  const sess = await ort.InferenceSession.create(req.model, opts);
  const feeds = {};
  for (const inp of req.inputs)
    feeds[inp.name] = readTensor(inp);
  const res = await sess.run(feeds);
  const outs = [];
  req.outputs.forEach((name, k) => {
    const t = res[name];
    const file = path.join(req.outdir, 'ort_' + k + '.bin');
    const d = t.data;
    let bytes;
    if (t.type === 'bool')
      bytes = Buffer.from(Uint8Array.from(d, (v) => (v ? 1 : 0)));
    else
      bytes = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
    fs.writeFileSync(file, bytes);
    outs.push({ name, dtype: t.type, shape: t.dims, file });
  });
  if (sess.release)
    await sess.release();
  return { ok: true, outputs: outs };
}

const rl = readline.createInterface({ input: process.stdin });
let chain = Promise.resolve();
rl.on('line', (line) => {
  chain = chain.then(async () => {
    let reply;
    try {
      reply = await handle(JSON.parse(line));
    } catch (e) {
      reply = { ok: false, error: String(e && e.message ? e.message : e) };
    }
    process.stdout.write(JSON.stringify(reply) + '\n');
  });
});
