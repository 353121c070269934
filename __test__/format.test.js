'use strict';
// toString()/print() must match tfjs's text exactly.
const { describe, it } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');

const programs = {
  'scalar': (tf) => tf.scalar(5),
  'scalar float': (tf) => tf.scalar(5.123456789),
  'scalar int32 negative': (tf) => tf.scalar(-3, 'int32'),
  'scalar bool': (tf) => tf.scalar(true),
  '1d': (tf) => tf.tensor1d([1, 2, 3]),
  '1d mixed': (tf) => tf.tensor1d([1.5, -2.25, 3]),
  '1d bool': (tf) => tf.tensor1d([true, false]),
  '1d thirds': (tf) => tf.tensor1d([1 / 3, 2 / 3, 100]),
  '1d tiny and huge': (tf) => tf.tensor1d([1e-10, 2, 1e10, 123456789]),
  '1d NaN/Inf': (tf) => tf.tensor1d([NaN, Infinity, -Infinity]),
  '1d 20 values': (tf) => tf.range(0, 20),
  '1d 21 values': (tf) => tf.range(0, 21),
  '1d long': (tf) => tf.range(-50, 50).div(3),
  '1d long bool': (tf) => tf.range(0, 30).cast('bool'),
  '2d': (tf) => tf.tensor2d([[1, 2], [3, 4]]),
  '2d ragged widths': (tf) => tf.tensor2d([[1, -2], [3.123456, 4]]),
  '2d bool': (tf) => tf.tensor2d([[true, false], [false, true]]),
  '2d int32': (tf) => tf.tensor2d([[1, 200], [-30, 4]], [2, 2], 'int32'),
  '2d 10x10': (tf) => tf.range(0, 100).reshape([10, 10]),
  '2d 40x50': (tf) => tf.range(0, 2000).reshape([40, 50]),
  '2d 1x25': (tf) => tf.range(0, 25).reshape([1, 25]),
  '2d 25x1': (tf) => tf.range(0, 25).reshape([25, 1]),
  '3d': (tf) => tf.tensor3d([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
  '3d 2x3x5': (tf) => tf.range(0, 30).reshape([2, 3, 5]),
  '3d long': (tf) => tf.range(0, 3 * 25 * 2).reshape([25, 3, 2]),
  '4d': (tf) => tf.range(0, 8).reshape([2, 2, 2, 1]),
  '5d': (tf) => tf.range(0, 32).reshape([2, 2, 2, 2, 2]).div(7),
  'empty 1d': (tf) => tf.tensor([]),
  'empty 2x0': (tf) => tf.zeros([2, 0]),
  'empty 0x2x3': (tf) => tf.zeros([0, 2, 3]),
  'random-ish floats': (tf) => tf.tensor2d([[0.1, 0.2, 0.3], [0.30000001, -0.000001, 1234.5678]]),
};

describe('toString and print', () => {
  for (const [name, program] of Object.entries(programs)) {
    for (const verbose of [false, true]) {
      it(`${name}${verbose ? ' (verbose)' : ''}`, () => {
        const a = program(tfo);
        const b = program(tt);
        if (a == null) return;
        assert.equal(b.toString(verbose), a.toString(verbose));
        tfo.dispose(a);
        tt.dispose(b);
      });
    }
  }

  it('print writes toString(verbose) to console.log', () => {
    const t = tt.tensor2d([[1, 2], [3, 4]]);
    const orig = console.log;
    const lines = [];
    console.log = (...args) => lines.push(args.join(' '));
    try {
      t.print();
      t.print(true);
    } finally {
      console.log = orig;
    }
    assert.deepEqual(lines, [t.toString(), t.toString(true)]);
    t.dispose();
  });
});
