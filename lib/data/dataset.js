'use strict';
// tf.data.Dataset and its sources (array, zip, generator, func), as tfjs-data 4.22 has them: a
// dataset is a recipe that makes a fresh LazyIterator on each iterator() call, and `size` is
// what tfjs computes from the recipe (null when unknown, Infinity for endless streams).
const { Tensor } = require('../tensor');
const { tidy } = require('../engine');
const { stack } = require('../ops/layout');
const { tensor } = require('../ops/creation');
const { util } = require('../util');
const it = require('./iterators');

class Dataset {
  constructor() {
    this.size = null;
  }

  // Batches of `batchSize` elements: numbers and arrays become a tensor, tensors are stacked
  // (and disposed), objects batch key by key.
  batch(batchSize, smallLastBatch = true) {
    const base = this;
    util.assert(batchSize > 0, () => `batchSize needs to be positive, but it is
      ${batchSize}`);
    let size;
    if (this.size === Infinity || this.size == null) size = this.size;
    else size = smallLastBatch ? Math.ceil(this.size / batchSize) : Math.floor(this.size / batchSize);
    return datasetFromIteratorFn(async () => (await base.iterator())
      .columnMajorBatch(batchSize, smallLastBatch, deepBatchConcat), size);
  }

  concatenate(dataset) {
    const base = this;
    let size;
    if (this.size === Infinity || dataset.size === Infinity) size = Infinity;
    else if (this.size != null && dataset.size != null) size = this.size + dataset.size;
    else size = null;
    return datasetFromIteratorFn(async () => (await base.iterator()).concatenate(await dataset.iterator()), size);
  }

  // The predicate runs in tidy; rejected elements are disposed.
  filter(predicate) {
    const base = this;
    const size = this.size === Infinity ? Infinity : null;
    return datasetFromIteratorFn(async () => (await base.iterator()).filter((x) => tidy(() => predicate(x))), size);
  }

  async forEachAsync(f) {
    return (await this.iterator()).forEachAsync(f);
  }

  // The transform runs in tidy; the input's tensors that the output does not hold are disposed.
  map(transform) {
    const base = this;
    return datasetFromIteratorFn(async () => (await base.iterator()).map((x) => tidy(() => transform(x))), this.size);
  }

  // Not in tidy (it is async): the transform disposes its own intermediates.
  mapAsync(transform) {
    const base = this;
    return datasetFromIteratorFn(async () => (await base.iterator()).mapAsync(transform), this.size);
  }

  prefetch(bufferSize) {
    if (bufferSize == null) throw new RangeError('`Dataset.prefetch()` requires bufferSize to be specified.');
    const base = this;
    return datasetFromIteratorFn(async () => (await base.iterator()).prefetch(bufferSize), this.size);
  }

  // `count` times (undefined or negative: endlessly), a fresh iterator of this dataset each time.
  repeat(count) {
    const base = this;
    let size;
    if (this.size != null && count > 0) size = this.size * count;
    else if (count === 0) size = 0;
    else if (this.size != null && (count === undefined || count < 0)) size = Infinity;
    else size = null;
    return datasetFromIteratorFn(async () => {
      const iterators = new it.FunctionCallIterator(async () => ({ value: await base.iterator(), done: false }));
      return new it.ChainedIterator(iterators.take(count));
    }, size);
  }

  skip(count) {
    const base = this;
    let size;
    if (this.size != null && count >= 0 && this.size >= count) size = this.size - count;
    else if (this.size != null && (this.size < count || count === undefined || count < 0)) size = 0;
    else size = null;
    return datasetFromIteratorFn(async () => (await base.iterator()).skip(count), size);
  }

  // A window of `bufferSize` elements sampled at random. One seeded generator gives each
  // iterator its seed, as tfjs draws them. Without reshuffling, every pass reuses the first
  // pass's seed, as documented (tfjs 4.22 draws a new one each pass all the same).
  shuffle(bufferSize, seed, reshuffleEachIteration = true) {
    if (bufferSize == null || bufferSize < 0) {
      if (this.size == null) throw new RangeError('`Dataset.shuffle()` requires bufferSize to be specified.');
      throw new RangeError('`Dataset.shuffle()` requires bufferSize to be specified.  '
        + 'If your data fits in main memory (for regular JS objects), '
        + 'and/or GPU memory (for `tf.Tensor`s), consider setting '
        + `bufferSize to the dataset size (${this.size} elements)`);
    }
    const base = this;
    const random = it.alea(seed || util.now().toString());
    let fixed = null;
    return datasetFromIteratorFn(async () => {
      let seed2 = fixed == null ? random.int32() : fixed;
      if (reshuffleEachIteration) seed2 += random.int32();
      else fixed = seed2;
      return (await base.iterator()).shuffle(bufferSize, seed2.toString());
    }, this.size);
  }

  take(count) {
    const base = this;
    let size;
    if (this.size != null && this.size > count) size = count;
    else if (this.size != null && this.size <= count) size = this.size;
    else size = null;
    return datasetFromIteratorFn(async () => (await base.iterator()).take(count), size);
  }

  async toArray() {
    if (this.size === Infinity) throw new Error('Can not convert infinite data stream to array.');
    return (await this.iterator()).toArray();
  }

  async toArrayForTest() {
    if (this.size === Infinity) throw new Error('Can not convert infinite data stream to array.');
    return (await this.iterator()).toArrayForTest();
  }
}
Dataset.MAX_BUFFER_SIZE = 10000;

// A dataset whose iterator() is `iteratorFn` (a user's plain iterator is wrapped).
function datasetFromIteratorFn(iteratorFn, size = null) {
  return new class extends Dataset {
    constructor() {
      super();
      this.size = size;
    }

    async iterator() {
      return it.toLazy(await iteratorFn());
    }
  }();
}

// The items of an array (their tensors cloned on each pass, so the array stays usable).
function array(items) {
  return datasetFromIteratorFn(async () => new it.ArrayIterator(items), items.length);
}

// Elements of several datasets side by side, in the array / object structure given.
function zip(datasets) {
  if (!it.isIterable(datasets)) throw new Error('The argument to zip() must be an object or array.');
  let size;
  for (const k of Array.isArray(datasets) ? datasets.keys() : Object.keys(datasets)) {
    size = size == null ? datasets[k].size : Math.min(size, datasets[k].size);
  }
  return datasetFromIteratorFn(async () => {
    const streams = await it.deepMapAndAwaitAll(datasets, (d) => {
      if (d instanceof Dataset) return { value: d.iterator(), recurse: false };
      if (it.isIterable(d)) return { value: null, recurse: true };
      throw new Error('Leaves of the structure passed to zip() must be Datasets, not primitives.');
    });
    return new it.ZipIterator(streams);
  }, size);
}

// One iterator, shared by every pass: `f()` gives `{value, done}` (or a promise of it).
function func(f) {
  const iter = new it.FunctionCallIterator(f);
  return datasetFromIteratorFn(async () => iter);
}

// `generator()` returns an iterator (a generator, sync or async, or any object with next()),
// a fresh one for each pass. (The names are tfjs's: they are in the TypeErrors of bad arguments.)
function generator(generator) {
  return datasetFromIteratorFn(async () => {
    const gen = await generator();
    return new it.FunctionCallIterator(() => gen.next());
  });
}

// batch()'s zip function: leaves that can be tensors become one tensor per batch.
function deepBatchConcat(rows) {
  if (rows === null) return null;
  if (!it.canTensorify(rows[0])) return { value: null, recurse: true };
  if (rows.length === 0) throw new Error('Can\'t make a batch of zero elements.');
  return { value: rows[0] instanceof Tensor ? stack(rows) : tensor(rows), recurse: false };
}

module.exports = { Dataset, datasetFromIteratorFn, array, zip, func, generator };
