'use strict';
// tf.data's lazy streams, as tfjs-data has them: a LazyIterator gives `{value, done}` promises
// and the chaining methods (map, filter, batch, shuffle ...) wrap one stream in another. The
// memory rules are tfjs's: map disposes the input tensors that the output does not hold,
// filter and skip dispose what they drop, an array source hands out clones of its tensors.
// Beyond tfjs: an element that fails (a throwing transform, ragged rows, a failed read) has its
// tensors disposed with the error, and the shuffle and prefetch buffers grow with the elements
// really read, never to the size asked up front. Also here: the deep map / zip / clone helpers
// over nested elements, and seedrandom's Alea.
const { StringDecoder } = require('node:string_decoder');
const v8 = require('node:v8');
const native = require('../native');
const { Tensor } = require('../tensor');
const { dispose, tidy } = require('../engine');
const { util, tensor_util } = require('../util');

// ---- nested elements ------------------------------------------------------------------------

// Whether deep maps recurse into `obj`: arrays and plain objects, not tensors, typed arrays,
// promises or decoders.
// (A tensor is recognised as tfjs's Tensor[Symbol.hasInstance] does: by dataId, shape and dtype.)
function isIterable(obj) {
  const tensorLike = (o) => o instanceof Tensor || (o.dataId != null && o.shape != null && o.dtype != null);
  return obj != null && !ArrayBuffer.isView(obj) && (Array.isArray(obj) || (typeof obj === 'object'
    && !tensorLike(obj) && !(obj instanceof Promise) && !(obj instanceof StringDecoder)));
}

// What batch() turns into one tensor: primitives, arrays, tensors, typed arrays.
function canTensorify(obj) {
  return obj == null || (typeof obj !== 'object' && typeof obj !== 'function') || Array.isArray(obj)
    || obj instanceof Tensor || util.isTypedArray(obj);
}

// tfjs's deepMap: `mapFn(x)` returns {value, recurse}; the same input object maps to the same
// output (`seen`), recursion keeps arrays as arrays and objects' prototypes.
function deepMap(input, mapFn, seen = new Map(), containedIn = new Set()) {
  if (input == null) return null;
  if (containedIn.has(input)) throw new Error('Circular references are not supported.');
  if (seen.has(input)) return seen.get(input);
  const result = mapFn(input);
  if (result.recurse && result.value !== null) {
    throw new Error('A deep map function may not return both a value and recurse=true.');
  }
  if (!result.recurse) {
    seen.set(input, result.value);
    return result.value;
  }
  if (!isIterable(input)) throw new Error(`Can't recurse into non-iterable type: ${input}`);
  const out = Array.isArray(input) ? [] : {};
  containedIn.add(input);
  for (const k in input) out[k] = deepMap(input[k], mapFn, seen, containedIn);
  containedIn.delete(input);
  if (Object.getPrototypeOf(input)) Object.setPrototypeOf(out, Object.getPrototypeOf(input));
  return out;
}

// tfjs's deepZip: `zipFn(rows)` batches the rows at this level or asks to recurse by key.
function deepZip(inputs, zipFn, containedIn = new Set()) {
  const input = inputs[0];
  if (containedIn.has(input)) throw new Error('Circular references are not supported.');
  const result = zipFn(inputs);
  if (result.recurse && result.value !== null) {
    throw new Error('A deep zip function may not return both a value and recurse=true.');
  }
  if (!result.recurse) return result.value;
  if (!isIterable(input)) throw new Error(`Can't recurse into non-iterable type: ${input}`);
  const out = Array.isArray(input) ? [] : {};
  containedIn.add(input);
  for (const k in input) out[k] = deepZip(inputs.map((x) => x[k]), zipFn, containedIn);
  containedIn.delete(input);
  return out;
}

// deepMap whose leaves may be promises: maps once, awaits every promise, maps again.
async function deepMapAndAwaitAll(input, mapFn) {
  const seen = new Map();
  deepMap(input, mapFn, seen);
  for (const [key, value] of seen) if (util.isPromise(value)) seen.set(key, await value);
  return deepMap(input, mapFn, seen);
}

// A copy of the element with each tensor cloned (what an array source hands out).
const deepClone = (container) => deepMap(container, (item) => {
  if (item instanceof Tensor) return { value: item.clone(), recurse: false };
  return isIterable(item) ? { value: null, recurse: true } : { value: item, recurse: false };
});

// ---- seedrandom's Alea (the generator tfjs's shuffle draws from) -----------------------------

function mash() {
  let n = 0xefc8249d;
  return (data) => {
    const s = String(data);
    for (let i = 0; i < s.length; i++) {
      n += s.charCodeAt(i);
      let h = 0.02519603282416938 * n;
      n = h >>> 0;
      h -= n;
      h *= n;
      n = h >>> 0;
      h -= n;
      n += h * 0x100000000;
    }
    return (n >>> 0) * 2.3283064365386963e-10;
  };
}

// seedrandom.alea(seed): a function of uniform [0, 1) values with `int32()`.
function alea(seed) {
  const m = mash();
  let c = 1;
  let s0 = m(' ');
  let s1 = m(' ');
  let s2 = m(' ');
  s0 -= m(seed);
  if (s0 < 0) s0 += 1;
  s1 -= m(seed);
  if (s1 < 0) s1 += 1;
  s2 -= m(seed);
  if (s2 < 0) s2 += 1;
  const next = () => {
    const t = 2091639 * s0 + c * 2.3283064365386963e-10;
    s0 = s1;
    s1 = s2;
    s2 = t - (c = t | 0);
    return s2;
  };
  next.int32 = () => (next() * 0x100000000) | 0;
  return next;
}

// ---- streams --------------------------------------------------------------------------------

const DONE = () => ({ value: null, done: true });

// Disposes the tensors of `input` that `output` does not hold (map's rule).
function disposeConsumed(input, output) {
  const outs = tensor_util.getTensorsInContainer(output);
  for (const t of tensor_util.getTensorsInContainer(input)) if (!tensor_util.isTensorInList(t, outs)) t.dispose();
}

class LazyIterator {
  // When a read fails, the elements read so far are disposed with the error: the caller never
  // gets them (tfjs leaves them allocated).
  async toArray() {
    const result = [];
    try {
      for (let x = await this.next(); !x.done; x = await this.next()) result.push(x.value);
    } catch (e) {
      dispose(result);
      throw e;
    }
    return result;
  }

  // Through a prefetch of 100: promises resolve out of step with the reads, as tfjs tests it.
  async toArrayForTest() {
    return this.prefetch(100).toArray();
  }

  async resolveFully() {
    for (let x = await this.next(); !x.done; x = await this.next());
  }

  filter(predicate) {
    return new FilterIterator(this, predicate);
  }

  map(transform) {
    return new MapIterator(this, transform);
  }

  mapAsync(transform) {
    return new AsyncMapIterator(this, transform);
  }

  // forEachAsync: the element's tensors are disposed after `f`, unless `f` returns them.
  async forEachAsync(f) {
    return this.map(f).resolveFully();
  }

  rowMajorBatch(batchSize, smallLastBatch = true) {
    return new BatchIterator(this, batchSize, smallLastBatch);
  }

  // Rows batched column by column: zipFn stacks each leaf of the rows (map disposes the rows).
  // In tidy, so that a batch failing at one leaf (ragged rows) leaves none of its other leaves'
  // tensors behind (tfjs leaves them).
  columnMajorBatch(batchSize, smallLastBatch, zipFn) {
    return this.rowMajorBatch(batchSize, smallLastBatch).map((rows) => tidy(() => deepZip(rows, zipFn)));
  }

  concatenate(iterator) {
    return new ChainedIterator(new ArrayIterator([this, iterator], false));
  }

  take(count) {
    return count < 0 || count == null ? this : new TakeIterator(this, count);
  }

  skip(count) {
    return count < 0 || count == null ? this : new SkipIterator(this, count);
  }

  prefetch(bufferSize) {
    return new PrefetchIterator(this, bufferSize);
  }

  shuffle(windowSize, seed) {
    return new ShuffleIterator(this, windowSize, seed);
  }
}

// A stream whose reads run one after another (its state changes across awaits), even when a
// prefetch asks for several at once.
class SerialIterator extends LazyIterator {
  next() {
    this.lastRead = (this.lastRead || Promise.resolve()).then(() => this.serialNext());
    return this.lastRead;
  }
}

// The items of an array, tensors cloned (tfjs hands out clones, so the array stays intact).
class ArrayIterator extends LazyIterator {
  constructor(items, clone = true) {
    super();
    this.items = items;
    this.clone = clone;
    this.trav = 0;
  }

  async next() {
    if (this.trav >= this.items.length) return DONE();
    const item = this.items[this.trav++];
    return { value: this.clone ? deepClone(item) : item, done: false };
  }
}

// Each read calls `nextFn` (a generator's next, or tf.data.func's function).
class FunctionCallIterator extends LazyIterator {
  constructor(nextFn) {
    super();
    this.nextFn = nextFn;
  }

  async next() {
    try {
      return this.nextFn();
    } catch (e) {
      e.message = `Error thrown while iterating through a dataset: ${e.message}`;
      throw e;
    }
  }
}

class SkipIterator extends SerialIterator {
  constructor(upstream, maxCount) {
    super();
    this.upstream = upstream;
    this.maxCount = maxCount;
    this.count = 0;
  }

  async serialNext() {
    while (this.count++ < this.maxCount) {
      const skipped = await this.upstream.next();
      if (skipped.done) return skipped;
      dispose(skipped.value);
    }
    return this.upstream.next();
  }
}

class TakeIterator extends LazyIterator {
  constructor(upstream, maxCount) {
    super();
    this.upstream = upstream;
    this.maxCount = maxCount;
    this.count = 0;
  }

  async next() {
    return this.count++ >= this.maxCount ? DONE() : this.upstream.next();
  }
}

// Arrays of `batchSize` elements (the last one smaller when allowed; else its elements are
// disposed, where tfjs leaves them).
class BatchIterator extends SerialIterator {
  constructor(upstream, batchSize, smallLastBatch) {
    super();
    this.upstream = upstream;
    this.batchSize = batchSize;
    this.smallLastBatch = smallLastBatch;
  }

  async serialNext() {
    const batch = [];
    while (batch.length < this.batchSize) {
      let item;
      try {
        item = await this.upstream.next();
      } catch (e) {
        dispose(batch); // a failed read drops the batch begun (tfjs leaves it allocated)
        throw e;
      }
      if (item.done) {
        if (this.smallLastBatch && batch.length > 0) return { value: batch, done: false };
        dispose(batch);
        return DONE();
      }
      batch.push(item.value);
    }
    return { value: batch, done: false };
  }
}

class FilterIterator extends SerialIterator {
  constructor(upstream, predicate) {
    super();
    this.upstream = upstream;
    this.predicate = predicate;
  }

  // A predicate's result counts by its truth (a tensor is true, as in tfjs); its tensors that are
  // not the element's are disposed.
  async serialNext() {
    for (;;) {
      const item = await this.upstream.next();
      if (item.done) return item;
      const keep = disposedOnThrow(item.value, () => this.predicate(item.value));
      disposeConsumed(keep, item.value);
      if (keep) return item;
      dispose(item.value);
    }
  }
}

// `f()`, the element's tensors disposed when it throws: the element is dropped with the error
// (tfjs leaves them allocated).
function disposedOnThrow(element, f) {
  try {
    return f();
  } catch (e) {
    dispose(element);
    throw e;
  }
}

// map; mapAsync awaits the transform's result.
class MapIterator extends LazyIterator {
  constructor(upstream, transform) {
    super();
    this.upstream = upstream;
    this.transform = transform;
  }

  async next() {
    const item = await this.upstream.next();
    if (item.done) return DONE();
    const mapped = disposedOnThrow(item.value, () => this.transform(item.value));
    disposeConsumed(item.value, mapped);
    return { value: mapped, done: false };
  }
}

class AsyncMapIterator extends MapIterator {
  async next() {
    const item = await this.upstream.next();
    if (item.done) return DONE();
    let mapped;
    try {
      mapped = await this.transform(item.value);
    } catch (e) {
      dispose(item.value);
      throw e;
    }
    disposeConsumed(item.value, mapped);
    return { value: mapped, done: false };
  }
}

// The streams of a stream of iterators, one after another (repeat, concatenate).
class ChainedIterator extends LazyIterator {
  constructor(iterators) {
    super();
    this.moreIterators = iterators;
    this.iterator = null;
    this.lastRead = null;
  }

  next() {
    this.lastRead = this.readFromChain(this.lastRead);
    return this.lastRead;
  }

  async readFromChain(lastRead) {
    await lastRead;
    for (;;) {
      if (this.iterator == null) {
        const r = await this.moreIterators.next();
        if (r.done) return DONE();
        this.iterator = r.value;
      }
      const item = await this.iterator.next();
      if (!item.done) return item;
      this.iterator = null;
    }
  }
}

// Elements of several streams side by side, in the structure of `iterators`; ends with the
// shortest stream. (tfjs drops the other streams' last elements undisposed; they are disposed here.)
class ZipIterator extends LazyIterator {
  constructor(iterators) {
    super();
    this.iterators = iterators;
    this.current = null;
  }

  next() {
    this.current = this.nextState(this.current);
    return this.current;
  }

  async nextState(after) {
    await after;
    let numIterators = 0;
    let done = 0;
    const mapped = await deepMapAndAwaitAll(this.iterators, (c) => {
      if (!(c instanceof LazyIterator)) return { value: null, recurse: true };
      return {
        value: c.next().then((x) => {
          numIterators++;
          if (x.done) done++;
          return x.value;
        }),
        recurse: false,
      };
    });
    if (numIterators === done) return DONE();
    if (done > 0) {
      dispose(tensor_util.getTensorsInContainer(mapped));
      return DONE();
    }
    return { value: mapped, done: false };
  }
}

// tfjs's ring buffer checks its capacity, then `new Array(capacity)` refuses what is not a
// whole number below 2^32 (a string or an object passes there and tfjs then loops forever).
function checkCapacity(capacity) {
  if (capacity == null) throw new RangeError('Can\'t create a ring buffer of unknown capacity.');
  if (capacity < 1) throw new RangeError('Can\'t create ring buffer of capacity < 1.');
  if (!Number.isInteger(capacity) || capacity > 2 ** 32 - 1) throw new RangeError('Invalid array length');
}

// A buffer that grows with its input (a shuffle window, prefetched reads) checks, every
// MEMORY_CHECK_EVERY elements, that memory is left: the host's (the figure the engine checks
// large tensors against) and V8's heap. Below MIN_FREE_BYTES it stops with an error instead of
// taking the process's last memory (a window of 1e9 over an endless dataset, say).
const MEMORY_CHECK_EVERY = 1024;
const MIN_FREE_BYTES = 256 * 2 ** 20;

function checkMemory(what, length, asked) {
  if (length === 0 || length % MEMORY_CHECK_EVERY !== 0) return;
  const host = native.hostAvailableBytes();
  const heap = v8.getHeapStatistics();
  const left = Math.min(host < 0 ? Infinity : host, heap.heap_size_limit - heap.used_heap_size);
  if (left < MIN_FREE_BYTES) {
    throw new Error(`The ${what} buffer stopped at ${length} elements of the ${asked} asked for: only ` +
      `${Math.floor(left / 2 ** 20)} MB of memory are left`);
  }
}

// The tensors of buffered reads ({value, done} or a promise of one), disposed when a buffer is
// given up.
function disposeReads(reads) {
  for (const read of reads) {
    if (read instanceof Promise) read.then((r) => dispose(r.value), () => {});
    else if (read && read.value != null) dispose(read.value);
  }
}

// Keeps up to `bufferSize` reads of the upstream in flight. tfjs makes all `bufferSize` reads
// at once; here the reads in flight grow by one with each element handed out, so prefetch(1e9)
// of a short stream holds no more than the stream gives (the elements are the same).
class PrefetchIterator extends LazyIterator {
  constructor(upstream, bufferSize) {
    super();
    checkCapacity(bufferSize);
    this.upstream = upstream;
    this.bufferSize = bufferSize;
    this.buffer = [];
    this.handedOut = 0;
  }

  next() {
    const inFlight = Math.min(this.bufferSize, ++this.handedOut);
    while (this.buffer.length < inFlight) {
      try {
        checkMemory('prefetch', this.buffer.length, this.bufferSize);
      } catch (e) {
        disposeReads(this.buffer.splice(0));
        return Promise.reject(e);
      }
      this.buffer.push(this.upstream.next());
    }
    return this.buffer.shift();
  }
}

// The reads past the end of the stream a shuffle window counts, at most (see ShuffleIterator).
const MAX_DONE_SLOTS = 2 ** 20;
const DONE_READ = { value: null, done: true };

// A random element of a window of `windowSize` upstream reads, its slot refilled by the
// window's last one, then a new read appended (tfjs's ring-buffer excision, so a seed gives
// tfjs's order). tfjs makes the window's reads at once, and once the stream has ended every
// further read is done; here the reads are made as the window fills, and the done reads past
// the end are only counted (`doneSlots`, always the window's last slots), so shuffle(1e9) of ten
// elements holds ten. At most MAX_DONE_SLOTS are counted: tfjs needs ten seconds for a window
// with that many, and every one costs a draw; beyond it the order is no longer tfjs's.
class ShuffleIterator extends LazyIterator {
  constructor(upstream, windowSize, seed) {
    super();
    checkCapacity(windowSize);
    this.upstream = upstream;
    this.windowSize = windowSize;
    this.random = alea(seed || util.now().toString());
    this.buffer = []; // reads: {value, done} results, or the rejected promise of a failed read
    this.doneSlots = 0;
    this.ended = false; // a read came back done: so will every later one
    this.upstreamExhausted = false; // a done read was drawn: no more refills before a draw
  }

  next() {
    this.lastRead = (this.lastRead || Promise.resolve()).then(() => this.serialNext());
    return this.lastRead;
  }

  // Reads until the window holds `windowSize` reads or the stream has ended.
  async refill() {
    while (this.buffer.length + this.doneSlots < this.windowSize) {
      if (this.ended) {
        this.doneSlots = Math.min(this.windowSize - this.buffer.length, MAX_DONE_SLOTS);
        return;
      }
      try {
        checkMemory('shuffle', this.buffer.length, this.windowSize);
      } catch (e) {
        disposeReads(this.buffer.splice(0));
        this.ended = true;
        throw e;
      }
      const read = this.upstream.next();
      try {
        const item = await read;
        if (item.done) this.ended = true;
        else this.buffer.push(item);
      } catch (e) {
        this.buffer.push(read); // thrown when drawn, as tfjs's rejected read
      }
    }
  }

  async serialNext() {
    if (!this.upstreamExhausted) await this.refill();
    while (this.buffer.length + this.doneSlots > 0) {
      const i = Math.floor(this.random() * (this.buffer.length + this.doneSlots));
      let chosen = DONE_READ; // a counted done slot: the last slot, also done, takes its place
      if (this.doneSlots > 0) {
        if (i < this.buffer.length) {
          chosen = this.buffer[i];
          this.buffer[i] = DONE_READ;
        }
        this.doneSlots--;
      } else {
        chosen = this.buffer[i];
        const last = this.buffer.pop();
        if (i < this.buffer.length) this.buffer[i] = last;
      }
      const result = chosen instanceof Promise ? await chosen : chosen;
      if (result.done) {
        this.upstreamExhausted = true;
      } else {
        await this.refill();
        return result;
      }
    }
    return DONE();
  }
}

// A user's iterator (anything with next()) as a LazyIterator.
function toLazy(it) {
  return it instanceof LazyIterator ? it : new FunctionCallIterator(() => it.next());
}

module.exports = {
  LazyIterator, SerialIterator, ArrayIterator, FunctionCallIterator, ChainedIterator, ZipIterator, toLazy,
  isIterable, canTensorify, deepMapAndAwaitAll, alea,
};
