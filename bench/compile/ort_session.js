// SPDX-License-Identifier: MIT
//
// ONNX Runtime's session creation for one model file (the compile-time
// benchmark's comparison): prints {"ms": MILLISECONDS} for
// InferenceSession.create(PATH) with one intra-op thread and all graph
// optimisations, ORT's default. Run with NODE_PATH at the node_modules that
// holds onnxruntime-node (`make difftest-ort` installs it into build/ort).
'use strict';

const ort = require('onnxruntime-node');

async function main() {
  const t0 = process.hrtime.bigint();
  const s = await ort.InferenceSession.create(process.argv[2], {
    intraOpNumThreads: 1, interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const t1 = process.hrtime.bigint();
  if (!s.inputNames.length)
    throw new Error('no inputs');
  process.stdout.write(JSON.stringify({ ms: Number(t1 - t0) / 1e6 }) + '\n');
}

main().catch((e) => { console.error(String(e)); process.exit(1); });
