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
require(entry);
