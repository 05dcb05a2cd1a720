#!/usr/bin/env node
// `npm run build [-- OUTDIR]`: the sample bot, the brandeln-bot package and its gRPC libraries
// in one file, OUTDIR/bot.cjs (default dist/), with the .proto files it loads at run time
// beside it (OUTDIR/proto/). That folder runs with `node OUTDIR/bot.cjs` and nothing else: the
// installed arena wheel ships it, without a repository or node_modules.
'use strict';

const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const outDir = path.resolve(process.argv[2] || path.join(__dirname, 'dist'));
const sdkDir = path.dirname(require.resolve('brandeln-bot/package.json'));

fs.rmSync(outDir, { recursive: true, force: true });
esbuild.buildSync({
  entryPoints: [path.join(__dirname, 'bot.js')],
  outfile: path.join(outDir, 'bot.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  minify: true, // a wheel's package data: a quarter of the size
  keepNames: true, // error messages name the classes
  legalComments: 'eof',
  logLevel: 'warning',
});
// The bundled package finds its protocol at path.join(__dirname, 'proto'): beside the bundle.
fs.cpSync(path.join(sdkDir, 'proto'), path.join(outDir, 'proto'), { recursive: true });
process.stdout.write(`built ${path.relative(process.cwd(), path.join(outDir, 'bot.cjs'))}\n`);
