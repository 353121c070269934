'use strict';
// complex64 tensors and tf.spectral against @tensorflow/tfjs. tfjs counts no bytes for complex
// tensors (their parts live in the backend), so memory deltas are not compared; leaks are.
const { cases } = require('./helpers/ops');

const C = (tf) => tf.complex([[1, -2, 3], [0.5, 4, -6]], [[0, 1, -1], [2, -3, 0.25]]);
const o = { delta: false, tol: 1e-4 };

cases('complex64', [
  ['complex', C, o],
  ['complex scalar', (tf) => tf.complex(1, 2), o],
  ['complex of int32', (tf) => tf.complex(tf.tensor([1, 2], null, 'int32'), [3, 4]), o],
  ['complex shapes', (tf) => tf.complex([1, 2], [3]), o],
  ['real imag', (tf) => [tf.real(C(tf)), tf.imag(C(tf))], o],
  ['abs', (tf) => tf.abs(C(tf)), o],
  ['add sub mul', (tf) => [tf.add(C(tf), C(tf)), tf.sub(C(tf), tf.complex([1], [1])), tf.mul(C(tf), C(tf))], o],
  ['mul broadcast', (tf) => tf.mul(C(tf), tf.complex([[2], [0.5]], [[1], [-1]])), o],
  ['add real', (tf) => tf.add(C(tf), tf.tensor([[1, 2, 3], [4, 5, 6]])), o],
  ['div refuses', (tf) => tf.div(C(tf), C(tf)), { ...o, anyError: true }],
  ['reshape clone', (tf) => [tf.reshape(C(tf), [3, 2]), tf.clone(C(tf)), tf.expandDims(C(tf), 0)], o],
  ['concat stack', (tf) => [tf.concat([C(tf), C(tf)], 1), tf.stack([C(tf), C(tf)])], o],
  ['transpose', (tf) => tf.transpose(C(tf)), o],
  ['cast', (tf) => [tf.cast(C(tf), 'float32'), tf.cast(C(tf), 'int32'), tf.cast(tf.tensor([1.5, -2]), 'complex64')], o],
  ['zerosLike onesLike', (tf) => [tf.zerosLike(C(tf)), tf.onesLike(C(tf))], o],
  ['arraySync', (tf) => [C(tf).arraySync(), tf.complex(3, 4).arraySync()], o],
  ['toString', (tf) => [C(tf).toString(), tf.complex(1.5, -2).toString(), C(tf).toString(true)], o],
  ['tensor refuses complex64', (tf) => tf.tensor([1, 2], null, 'complex64'), o],
]);

const signal = (n) => (tf) => tf.tensor1d(Array.from({ length: n }, (_, i) => Math.sin(i * 0.7) + (i % 3) * 0.25));

cases('tf.spectral', [
  ['fft 1d', (tf) => tf.spectral.fft(tf.complex([1, 2, 3, 4], [0, -1, 0.5, 2])), o],
  ['fft batched', (tf) => tf.fft(C(tf)), o],
  ['fft 8', (tf) => tf.fft(tf.complex(signal(8)(tf), tf.zeros([8]))), o],
  ['fft 1', (tf) => tf.fft(tf.complex([3], [2])), o],
  ['ifft', (tf) => tf.ifft(C(tf)), o],
  ['ifft of fft', (tf) => tf.ifft(tf.fft(C(tf))), o],
  ['fft of real refuses', (tf) => tf.fft(tf.tensor([1, 2])), o],
  ['rfft', (tf) => tf.spectral.rfft(signal(6)(tf)), o],
  ['rfft odd', (tf) => tf.rfft(signal(7)(tf)), o],
  ['rfft 2d', (tf) => tf.rfft(tf.tensor2d([[1, 2, 3, 4], [0, 1, 0, -1]])), o],
  ['rfft crop', (tf) => tf.rfft(signal(8)(tf), 5), o],
  ['rfft pad', (tf) => tf.rfft(tf.tensor2d([[1, 2, 3], [4, 5, 6]]), 6), o],
  ['rfft int refuses', (tf) => tf.rfft(tf.tensor([1, 2], null, 'int32')), o],
  ['irfft', (tf) => tf.irfft(tf.complex([1, 2, 3], [0, 1, 0])), o],
  ['irfft 2', (tf) => tf.irfft(tf.complex([1, 2], [0, 1])), o],
  ['irfft rank 3', (tf) => tf.irfft(tf.complex([[[1, 2, 3, 4]], [[0, 1, 0, 1]]], [[[0, 1, 0, 0]], [[1, 1, 1, 1]]])), o],
  ['irfft of rfft', (tf) => tf.irfft(tf.rfft(signal(8)(tf))), o],
  ['stft', (tf) => tf.signal.stft(signal(16)(tf), 8, 4), o],
  ['stft fftLength', (tf) => tf.signal.stft(signal(12)(tf), 5, 3, 8, tf.signal.hammingWindow), o],
]);

cases('complex64, tfjs-core cases', [
  ['abs without underflow', (tf) => tf.abs(tf.complex([1e-30, 1e-30, 0, 3e30], [1e-30, 0, 1e-30, 4e30])), o],
  ['conjugate transpose', (tf) => [tf.transpose(C(tf), [1, 0], true), C(tf).transpose(undefined, true)], o],
  ['chained fft, ifft, rfft, irfft', (tf) => [C(tf).fft(), C(tf).ifft(), tf.tensor1d([1, 2, 3, 4]).rfft(), tf.complex([1, 2, 3], [0, 1, 0]).irfft()], o],
]);
