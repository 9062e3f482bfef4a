#!/usr/bin/env node
'use strict';
// The package ships compiled JavaScript; in a checkout, `npm run build` produces it.
const path = require('node:path');
const fs = require('node:fs');
const entry = path.join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');
if (!fs.existsSync(entry)) {
  console.error('avatar-pipeline: compiled code not found. Run `npm run build` in the package first.');
  process.exit(2);
}
// The worker sets its V8 heap flags before its modules load, while its young generation is
// still small (dist/src/worker/v8-heap-flags.js).
if (process.argv[2] === 'worker') {
  require(path.join(__dirname, '..', 'dist', 'src', 'worker', 'v8-heap-flags.js')).applyWorkerV8Flags();
}
require(entry);
