'use strict';
// The memory-management workloads of issue 12: what tf.tidyAsync costs over tf.tidy per call,
// and what origin tracking (the TRACK_ORIGINS flag) costs per tensor made. Each comes as a
// pair whose second member has a target relative to the first (bench/run.js's TARGETS).
// Implementations without the feature (tfjs) throw, so their cell shows an error.

// The helpers come from workloads.js (which lists these workloads after its own).
function memoryWorkloads({ median, measure, measureAsync }) {
  const CALLS = 1000;
  const TENSORS = 10000;

  // µs per call of `call` (an awaited async call), CALLS calls per repetition; checks that
  // nothing is left behind.
  const perCall = async (tf, call) => {
    const before = tf.memory().numTensors;
    let leaked = 0;
    const { perIter, iters } = await measureAsync(async () => {
      for (let i = 0; i < CALLS; i++) await call();
      leaked = Math.max(leaked, tf.memory().numTensors - before);
    });
    const us = perIter.map((ms) => (ms * 1000) / CALLS);
    return { value: median(us), samples: us, iters, check: leaked === 0 ? 'ok' : `${leaked} tensors left by the calls` };
  };

  // µs per `tf.scalar(1).dispose()`, TENSORS per repetition.
  const perScalar = (tf) => {
    const before = tf.memory().numTensors;
    const { perIter, iters } = measure(() => {
      for (let i = 0; i < TENSORS; i++) tf.scalar(1).dispose();
    });
    const us = perIter.map((ms) => (ms * 1000) / TENSORS);
    const after = tf.memory().numTensors;
    return { value: median(us), samples: us, iters, check: after === before ? 'ok' : `numTensors ${before} -> ${after}` };
  };

  return [
    {
      id: 'tidycall',
      label: 'await Promise.resolve(tf.tidy(() => { scalar(1).add(1) })) ×1,000',
      unit: 'µs/call',
      higherIsBetter: false,
      run(tf) {
        return perCall(tf, () => Promise.resolve(tf.tidy(() => { tf.scalar(1).add(1); })));
      },
    },
    {
      id: 'tidyasynccall',
      label: 'await tf.tidyAsync(async () => { scalar(1).add(1) }) ×1,000 (target: ≤ tidycall + 2 µs)',
      unit: 'µs/call',
      higherIsBetter: false,
      run(tf) {
        if (typeof tf.tidyAsync !== 'function') throw new Error('no tidyAsync in this implementation');
        return perCall(tf, () => tf.tidyAsync(async () => { tf.scalar(1).add(1); }));
      },
    },
    {
      id: 'scalardispose',
      label: 'tf.scalar(1).dispose() (10,000)',
      unit: 'µs/op',
      higherIsBetter: false,
      run(tf) {
        return perScalar(tf);
      },
    },
    {
      id: 'scalardisposetracked',
      label: "tf.scalar(1).dispose() with env TRACK_ORIGINS on (10,000) (target: ≤ scalardispose + 3 µs)",
      unit: 'µs/op',
      higherIsBetter: false,
      run(tf) {
        const env = tf.env();
        if (!env.flagRegistry || !env.flagRegistry.TRACK_ORIGINS) throw new Error('no origin tracking');
        const prev = env.get('TRACK_ORIGINS');
        env.set('TRACK_ORIGINS', true);
        try {
          return perScalar(tf);
        } finally {
          env.set('TRACK_ORIGINS', prev);
        }
      },
    },
  ];
}

module.exports = { memoryWorkloads };
