'use strict';
// The README's op × backend coverage table is generated from the code; it must be current.
const { test } = require('node:test');
const assert = require('node:assert');
const { readmeWith, table } = require('../scripts/coverage');

test('the README coverage table matches the code (node scripts/coverage.js --write)', () => {
  const { text, next } = readmeWith(table());
  assert.ok(text === next, 'README.md coverage table is stale: run `node scripts/coverage.js --write`');
});
