#!/usr/bin/env node
// ONNX Runtime, timed the way Lumen's runner times itself: the ORT peer in scripts/bench.sh.
//
//   node scripts/ort_peer.js --model ~/.cache/lumen-bench/onnx/vit.onnx --threads 1 --repeat 20
//   node scripts/ort_peer.js --model FILE.onnx --check tmp/models/resnet18   # against the case
//   node scripts/ort_peer.js --version       # the onnxruntime-node release it loads (bench.sh's)
//
// Timing prints `median X ms, min Y ms (R runs, N threads)` (scripts/pytorch_peer.py's format)
// over --repeat runs after --warmup runs, inputs random float32 of the model's input shapes, then
// `peak RSS K kB` (the process's maximum resident set). The session: intraOpNumThreads = N,
// interOpNumThreads = 1, sequential execution, every graph optimisation.
// --check runs the case's in*.f32 and exits 0 only when every output is within case.txt's
// tolerance of out*.f32 (scripts/make_onnx_models.py refuses exports that fail it).
//
// onnxruntime-node is not a dependency of Lumen: scripts/bench.sh installs it with npm into a cache
// folder. It is found by require (NODE_PATH), else in $LUMEN_ORT_NODE_DIR/node_modules, else in
// ~/.cache/lumen-bench/node/node_modules.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

// The onnxruntime-node package, from NODE_PATH or the bench's cache folder.
function loadOnnxRuntime() {
  try {
    return require('onnxruntime-node');
  } catch (error) {
    const folder = process.env.LUMEN_ORT_NODE_DIR ||
        path.join(os.homedir(), '.cache', 'lumen-bench', 'node');
    try {
      return require(path.join(folder, 'node_modules', 'onnxruntime-node'));
    } catch (inner) {
      fail(`onnxruntime-node not found (NODE_PATH, ${folder}/node_modules): run scripts/bench.sh ` +
           `or npm install --ignore-scripts --prefix ${folder} onnxruntime-node`);
    }
  }
}

// Prints a message and exits with status 2 (a usage or setup error, not a failed check).
function fail(message) {
  console.error(`ort_peer: ${message}`);
  process.exit(2);
}

// --name value pairs of the command line, with defaults.
function parseArguments(argv) {
  const options = {model: null, threads: 1, repeat: 20, warmup: 3, check: null, version: false};
  for (let i = 0; i < argv.length; ++i) {
    const name = argv[i];
    if (name === '--help' || name === '-h') {
      console.log('usage: node scripts/ort_peer.js --model FILE.onnx [--threads N] [--repeat R] ' +
                  '[--warmup W] [--check CASE_DIR]\n       node scripts/ort_peer.js --version');
      process.exit(0);
    }
    if (name === '--version') {
      options.version = true;
      continue;
    }
    const key = name.replace(/^--/, '');
    if (!name.startsWith('--') || !(key in options) || key === 'version' || i + 1 >= argv.length) {
      fail(`bad argument ${name} (see --help)`);
    }
    const value = argv[++i];
    options[key] = (key === 'model' || key === 'check') ? value : Number(value);
    const number = options[key];
    if (typeof number === 'number' && !(Number.isInteger(number) && number >= 0)) {
      fail(`--${key} wants a whole number, got ${value}`);
    }
  }
  if (options.version) return options;
  if (!options.model) fail('--model FILE.onnx is required');
  if (options.threads < 1 || options.repeat < 1) fail('--threads and --repeat must be at least 1');
  return options;
}

// case.txt as {inputs: [{file, shape}], outputs: [...], tolerance: [atol, rtol]}.
function readCase(caseDir) {
  const result = {inputs: [], outputs: [], tolerance: null};
  for (const line of fs.readFileSync(path.join(caseDir, 'case.txt'), 'utf8').split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'input' || words[0] === 'output') {
      result[words[0] + 's'].push(
          {file: path.join(caseDir, words[1]), shape: words[2].split(',').map(Number)});
    } else if (words[0] === 'tolerance') {
      result.tolerance = [Number(words[1]), Number(words[2])];
    }
  }
  if (!result.tolerance) fail(`${caseDir}/case.txt has no tolerance line`);
  return result;
}

// A raw little-endian float32 file as a Float32Array.
function readFloats(file) {
  const bytes = fs.readFileSync(file);
  const values = new Float32Array(bytes.length / 4);
  for (let i = 0; i < values.length; ++i) values[i] = bytes.readFloatLE(i * 4);
  return values;
}

// Random float32 inputs of the model's declared shapes (a symbolic dimension counts as 1).
function randomInputs(ort, session) {
  const feeds = {};
  session.inputNames.forEach((name, index) => {
    const metadata = session.inputMetadata[index];
    if (metadata.isTensor === false || (metadata.type && metadata.type !== 'float32')) {
      fail(`input ${name} is not a float32 tensor`);
    }
    const shape = metadata.shape.map((size) => (typeof size === 'number' && size > 0 ? size : 1));
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; ++i) data[i] = Math.random();
    feeds[name] = new ort.Tensor('float32', data, shape);
  });
  return feeds;
}

// Runs the case's inputs and compares every output with the case's, elementwise.
async function check(ort, session, caseDir) {
  const testCase = readCase(caseDir);
  if (testCase.inputs.length !== session.inputNames.length ||
      testCase.outputs.length !== session.outputNames.length) {
    console.log(`FAIL the model has ${session.inputNames.length} inputs and ` +
                `${session.outputNames.length} outputs, the case ${testCase.inputs.length} and ` +
                `${testCase.outputs.length}`);
    return 1;
  }
  const feeds = {};
  testCase.inputs.forEach((input, index) => {
    feeds[session.inputNames[index]] = new ort.Tensor('float32', readFloats(input.file),
                                                      input.shape);
  });
  const results = await session.run(feeds);
  const [atol, rtol] = testCase.tolerance;
  let largest = 0;
  for (let index = 0; index < testCase.outputs.length; ++index) {
    const want = readFloats(testCase.outputs[index].file);
    const got = results[session.outputNames[index]].data;
    if (got.length !== want.length) {
      console.log(`FAIL output ${index} has ${got.length} values, the case ${want.length}`);
      return 1;
    }
    let bad = 0;
    for (let i = 0; i < want.length; ++i) {
      const error = Math.abs(got[i] - want[i]);
      if (!(error <= atol + rtol * Math.abs(want[i]))) ++bad;
      if (!(error <= largest)) largest = error;  // NaN stays visible as the largest error.
    }
    if (bad > 0) {
      console.log(`FAIL output ${index}: ${bad} of ${want.length} values outside tolerance ` +
                  `${atol} ${rtol}, largest error ${largest}`);
      return 1;
    }
  }
  console.log(`PASS largest error ${largest.toExponential(2)} (tolerance ${atol} ${rtol})`);
  return 0;
}

// Warm-up, then --repeat timed runs; prints the median and minimum and the peak RSS.
async function time(ort, session, options) {
  const feeds = randomInputs(ort, session);
  for (let i = 0; i < options.warmup; ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < options.repeat; ++i) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const middle = times.length >> 1;
  const median = times.length % 2 ? times[middle] : (times[middle - 1] + times[middle]) / 2;
  console.log(`median ${median.toFixed(3)} ms, min ${times[0].toFixed(3)} ms ` +
              `(${options.repeat} runs, ${options.threads} threads)`);
  console.log(`peak RSS ${process.resourceUsage().maxRSS} kB`);
}

// The release of the loaded onnxruntime-node, as the package reports it about itself.
function versionOf(ort) {
  const version = ort.env && ort.env.versions && ort.env.versions.node;
  if (!version) fail('this onnxruntime-node does not report its version (ort.env.versions.node)');
  return version;
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  if (options.version) {
    console.log(versionOf(loadOnnxRuntime()));
    return;
  }
  if (!fs.existsSync(options.model)) fail(`no model file ${options.model}`);
  const ort = loadOnnxRuntime();
  const session = await ort.InferenceSession.create(options.model, {
    intraOpNumThreads: options.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  if (options.check) {
    process.exitCode = await check(ort, session, options.check);
  } else {
    await time(ort, session, options);
  }
}

main().catch((error) => fail(error.stack || String(error)));
