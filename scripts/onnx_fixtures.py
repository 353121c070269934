"""Writes the small ONNX models of __test__/fixtures/onnx (random weights, fixed seed) with
onnx's own helper: `python3 scripts/onnx_fixtures.py` with the `onnx` and `numpy` packages
from PyPI. The tests compare tidytensor's outputs on them with onnxruntime-node's."""

import os
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(__file__), '..', '__test__', 'fixtures', 'onnx')
rng = np.random.default_rng(7)


def w(name, *shape, scale=0.3):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def save(graph, opset, name, external=False):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)], producer_name='tidytensor-tests')
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = os.path.join(OUT, name)
    if external:
        # onnx appends to an existing data file: start it anew.
        data = os.path.join(OUT, name.replace('.onnx', '.data'))
        if os.path.exists(data):
            os.remove(data)
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=name.replace('.onnx', '.data'), size_threshold=0)
        os.chmod(data, 0o644)
    else:
        onnx.save_model(model, path)


def cnn(opset):
    """Conv (padded, depthwise, grouped SAME_UPPER stride 2), BatchNormalization, Clip, pools,
    Gemm and Softmax over a symbolic batch."""
    nodes = [
        helper.make_node('Conv', ['x', 'w1', 'b1'], ['c1'], pads=[1, 1, 1, 1]),
        helper.make_node('Relu', ['c1'], ['r1']),
        helper.make_node('MaxPool', ['r1'], ['p1'], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node('Conv', ['p1', 'w2'], ['c2'], group=8, pads=[1, 1, 1, 1]),
        helper.make_node('BatchNormalization', ['c2', 'g', 'beta', 'mean', 'var'], ['n2'], epsilon=1e-3),
        helper.make_node('Clip', ['n2', 'lo', 'hi'], ['r2']) if opset >= 11 else
        helper.make_node('Clip', ['n2'], ['r2'], min=0.0, max=6.0),
        helper.make_node('Conv', ['r2', 'w3', 'b3'], ['c3'], group=2, strides=[2, 2], auto_pad='SAME_UPPER'),
        helper.make_node('AveragePool', ['c3'], ['p3'], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node('GlobalAveragePool', ['p3'], ['g3']),
        helper.make_node('Flatten', ['g3'], ['f']),
        helper.make_node('Gemm', ['f', 'wd', 'bd'], ['logits'], transB=1, alpha=0.9),
        helper.make_node('Softmax', ['logits'], ['probs'], axis=1),
    ]
    inits = [w('w1', 8, 3, 3, 3), w('b1', 8), w('w2', 8, 1, 3, 3), w('g', 8), w('beta', 8), w('mean', 8),
             numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), 'var'),
             w('w3', 16, 4, 3, 3), w('b3', 16), w('wd', 10, 16), w('bd', 10)]
    if opset >= 11:
        inits += [numpy_helper.from_array(np.array(0, np.float32), 'lo'),
                  numpy_helper.from_array(np.array(6, np.float32), 'hi')]
    graph = helper.make_graph(nodes, 'cnn', [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['N', 3, 16, 16])],
                              [helper.make_tensor_value_info('probs', TensorProto.FLOAT, ['N', 10]),
                               helper.make_tensor_value_info('logits', TensorProto.FLOAT, ['N', 10])], inits)
    return graph


def encoder():
    """A transformer encoder block: shapes computed in the graph (Shape, Gather, Unsqueeze,
    Concat, Reshape), attention (MatMul, Transpose, Softmax, Div), LayerNormalization, GELU as
    Erf, Slice, Split, Where, Expand, Cast, ArgMax, ReduceMean with axes as an input."""
    d, heads = 16, 2
    nodes = [
        helper.make_node('Gather', ['emb', 'ids'], ['e0'], axis=0),
        helper.make_node('Add', ['e0', 'pos'], ['h0']),
        helper.make_node('Shape', ['h0'], ['shape']),
        helper.make_node('Gather', ['shape', 'zero'], ['batch']),
        helper.make_node('Gather', ['shape', 'one'], ['seq']),
        helper.make_node('Unsqueeze', ['batch', 'axes0'], ['batch1']),
        helper.make_node('Unsqueeze', ['seq', 'axes0'], ['seq1']),
        helper.make_node('Concat', ['batch1', 'seq1', 'heads', 'hd'], ['split_shape'], axis=0),
        helper.make_node('MatMul', ['h0', 'wqkv'], ['qkv']),
        helper.make_node('Split', ['qkv', 'splits'], ['q', 'k', 'v'], axis=2),
        helper.make_node('Reshape', ['q', 'split_shape'], ['q4']),
        helper.make_node('Reshape', ['k', 'split_shape'], ['k4']),
        helper.make_node('Reshape', ['v', 'split_shape'], ['v4']),
        helper.make_node('Transpose', ['q4'], ['qt'], perm=[0, 2, 1, 3]),
        helper.make_node('Transpose', ['k4'], ['kt'], perm=[0, 2, 3, 1]),
        helper.make_node('Transpose', ['v4'], ['vt'], perm=[0, 2, 1, 3]),
        helper.make_node('MatMul', ['qt', 'kt'], ['s']),
        helper.make_node('Div', ['s', 'sqrt_d'], ['s2']),
        # A mask: positions past `len` get -1e9.
        helper.make_node('Less', ['positions', 'len'], ['keep']),
        helper.make_node('Where', ['keep', 's2', 'neg'], ['s3']),
        helper.make_node('Softmax', ['s3'], ['a'], axis=-1),
        helper.make_node('MatMul', ['a', 'vt'], ['o']),
        helper.make_node('Transpose', ['o'], ['ot'], perm=[0, 2, 1, 3]),
        helper.make_node('Concat', ['batch1', 'seq1', 'dm'], ['merge_shape'], axis=0),
        helper.make_node('Reshape', ['ot', 'merge_shape'], ['om']),
        helper.make_node('MatMul', ['om', 'wo'], ['proj']),
        helper.make_node('Add', ['proj', 'h0'], ['res1']),
        helper.make_node('LayerNormalization', ['res1', 'ln_g', 'ln_b'], ['ln1'], axis=-1, epsilon=1e-5),
        helper.make_node('MatMul', ['ln1', 'w_ff1'], ['ff1']),
        helper.make_node('Add', ['ff1', 'b_ff1'], ['ff1b']),
        helper.make_node('Div', ['ff1b', 'sqrt2'], ['gx']),
        helper.make_node('Erf', ['gx'], ['gerf']),
        helper.make_node('Add', ['gerf', 'one_f'], ['g1']),
        helper.make_node('Mul', ['ff1b', 'g1'], ['g2']),
        helper.make_node('Mul', ['g2', 'half'], ['gelu']),
        helper.make_node('MatMul', ['gelu', 'w_ff2'], ['ff2']),
        helper.make_node('Add', ['ff2', 'ln1'], ['res2']),
        # Layer norm by hand (ReduceMean with axes as an input, opset 18).
        helper.make_node('ReduceMean', ['res2', 'last'], ['mu']),
        helper.make_node('Sub', ['res2', 'mu'], ['xc']),
        helper.make_node('Pow', ['xc', 'two'], ['sq']),
        helper.make_node('ReduceMean', ['sq', 'last'], ['var']),
        helper.make_node('Add', ['var', 'eps'], ['vare']),
        helper.make_node('Sqrt', ['vare'], ['sd']),
        helper.make_node('Div', ['xc', 'sd'], ['hidden']),
        # The first token's features, and each token's best feature.
        helper.make_node('Slice', ['hidden', 'st', 'en', 'ax1'], ['first']),
        helper.make_node('Squeeze', ['first', 'ax1'], ['pooled']),
        helper.make_node('ArgMax', ['hidden'], ['best'], axis=2, keepdims=0),
        helper.make_node('Cast', ['best'], ['best_f'], to=TensorProto.FLOAT),
        helper.make_node('Tile', ['pooled', 'reps'], ['tiled']),
        helper.make_node('Expand', ['len_f', 'exp_shape'], ['expanded']),
        helper.make_node('Cast', ['len'], ['len_f'], to=TensorProto.FLOAT),
    ]
    # Cast of len must come before Expand: reorder.
    nodes.insert(len(nodes) - 2, nodes.pop())
    vocab, seq = 20, 6
    inits = [
        w('emb', vocab, d), w('pos', seq, d), i64('zero', 0), i64('one', 1), i64('axes0', [0]),
        i64('heads', [heads]), i64('hd', [d // heads]), i64('dm', [d]), w('wqkv', d, 3 * d), i64('splits', [d, d, d]),
        numpy_helper.from_array(np.array(np.sqrt(d // heads), np.float32), 'sqrt_d'),
        i64('positions', list(range(seq))),
        numpy_helper.from_array(np.array(-1e9, np.float32), 'neg'),
        w('wo', d, d), w('ln_g', d), w('ln_b', d), w('w_ff1', d, 32), w('b_ff1', 32), w('w_ff2', 32, d),
        numpy_helper.from_array(np.array(np.sqrt(2), np.float32), 'sqrt2'),
        numpy_helper.from_array(np.array(1, np.float32), 'one_f'),
        numpy_helper.from_array(np.array(0.5, np.float32), 'half'),
        numpy_helper.from_array(np.array(2, np.float32), 'two'),
        numpy_helper.from_array(np.array(1e-5, np.float32), 'eps'),
        i64('last', [-1]), i64('st', [0]), i64('en', [1]), i64('ax1', [1]), i64('reps', [1, 2]), i64('exp_shape', [3, 1]),
    ]
    graph = helper.make_graph(
        nodes, 'encoder',
        [helper.make_tensor_value_info('ids', TensorProto.INT64, ['batch', seq]),
         helper.make_tensor_value_info('len', TensorProto.INT64, [])],
        [helper.make_tensor_value_info('hidden', TensorProto.FLOAT, ['batch', seq, d]),
         helper.make_tensor_value_info('tiled', TensorProto.FLOAT, ['batch', 2 * d]),
         helper.make_tensor_value_info('best_f', TensorProto.FLOAT, ['batch', seq]),
         helper.make_tensor_value_info('expanded', TensorProto.FLOAT, [3, 1])],
        inits)
    return graph


def recurrent():
    """A bidirectional LSTM (biases, initial state) whose outputs feed a GRU with
    linear_before_reset, over a symbolic batch: PyTorch's layout (sequence first)."""
    seq, inp, hid = 5, 8, 6
    nodes = [
        helper.make_node('LSTM', ['x', 'lw', 'lr', 'lb', '', 'h0', 'c0'], ['y', 'y_h', 'y_c'],
                         direction='bidirectional', hidden_size=hid),
        helper.make_node('Transpose', ['y'], ['yt'], perm=[0, 2, 1, 3]),
        helper.make_node('Reshape', ['yt', 'merge'], ['ym']),
        helper.make_node('GRU', ['ym', 'gw', 'gr', 'gb'], ['g', 'g_h'], hidden_size=hid, linear_before_reset=1),
    ]
    inits = [w('lw', 2, 4 * hid, inp), w('lr', 2, 4 * hid, hid), w('lb', 2, 8 * hid),
             w('gw', 1, 3 * hid, 2 * hid), w('gr', 1, 3 * hid, hid), w('gb', 1, 6 * hid), i64('merge', [0, 0, 2 * hid])]
    graph = helper.make_graph(
        nodes, 'recurrent',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [seq, 'N', inp]),
         helper.make_tensor_value_info('h0', TensorProto.FLOAT, [2, 'N', hid]),
         helper.make_tensor_value_info('c0', TensorProto.FLOAT, [2, 'N', hid])],
        [helper.make_tensor_value_info('g', TensorProto.FLOAT, [seq, 1, 'N', hid]),
         helper.make_tensor_value_info('g_h', TensorProto.FLOAT, [1, 'N', hid]),
         helper.make_tensor_value_info('y_c', TensorProto.FLOAT, [2, 'N', hid])],
        inits)
    return graph


def control_flow():
    """If and Loop over subgraphs that read outer values: y = x · 2 where sum(x) > 0, else
    x - 1; then a Loop of `n` rounds (stopping early once the running total passes 100) that
    adds y · scale to a carried total, counts its rounds and scans each round's total."""
    f = TensorProto.FLOAT
    then_g = helper.make_graph([helper.make_node('Mul', ['x', 'two'], ['t_out'])], 'then', [],
                               [helper.make_tensor_value_info('t_out', f, None)])
    else_g = helper.make_graph([helper.make_node('Sub', ['x', 'one'], ['e_out'])], 'else', [],
                               [helper.make_tensor_value_info('e_out', f, None)])
    body = helper.make_graph(
        [helper.make_node('Mul', ['y', 'scale'], ['ys']),
         helper.make_node('Add', ['total_in', 'ys'], ['total_out']),
         helper.make_node('Add', ['count_in', 'one_i'], ['count_out']),
         helper.make_node('ReduceSum', ['total_out'], ['s'], keepdims=0),
         helper.make_node('Less', ['s', 'limit'], ['cond_out']),
         helper.make_node('Identity', ['total_out'], ['snapshot'])],
        'body',
        [helper.make_tensor_value_info('i', TensorProto.INT64, []),
         helper.make_tensor_value_info('cond_in', TensorProto.BOOL, []),
         helper.make_tensor_value_info('total_in', f, None),
         helper.make_tensor_value_info('count_in', TensorProto.INT64, [])],
        [helper.make_tensor_value_info('cond_out', TensorProto.BOOL, []),
         helper.make_tensor_value_info('total_out', f, None),
         helper.make_tensor_value_info('count_out', TensorProto.INT64, []),
         helper.make_tensor_value_info('snapshot', f, None)])
    nodes = [
        helper.make_node('ReduceSum', ['x'], ['sx'], keepdims=0),
        helper.make_node('Greater', ['sx', 'zero'], ['positive']),
        helper.make_node('If', ['positive'], ['y'], then_branch=then_g, else_branch=else_g),
        helper.make_node('Loop', ['n', '', 'start', 'count0'], ['total', 'rounds', 'history'], body=body),
    ]
    inits = [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in
             [('two', 2), ('one', 1), ('zero', 0), ('limit', 100)]]
    inits += [numpy_helper.from_array(np.zeros(4, np.float32), 'start'), i64('count0', 0), i64('one_i', 1)]
    graph = helper.make_graph(
        nodes, 'control_flow',
        [helper.make_tensor_value_info('x', f, [4]), helper.make_tensor_value_info('scale', f, []),
         helper.make_tensor_value_info('n', TensorProto.INT64, [])],
        [helper.make_tensor_value_info('y', f, [4]), helper.make_tensor_value_info('total', f, [4]),
         helper.make_tensor_value_info('rounds', TensorProto.INT64, []),
         helper.make_tensor_value_info('history', f, ['rounds', 4])],
        inits)
    return graph


def contrib():
    """onnxruntime's contrib ops as its transformer optimizer writes them (com.microsoft, and
    SimplifiedLayerNormalization in the default domain), written without the checker, which
    knows only ONNX's own ops."""
    n, d = 8, 16
    ms = 'com.microsoft'
    nodes = [
        helper.make_node('FusedMatMul', ['x', 'w1'], ['m'], domain=ms, transB=1, alpha=0.5),
        helper.make_node('BiasGelu', ['m', 'b1'], ['g1'], domain=ms),
        helper.make_node('FastGelu', ['g1', 'b2'], ['g2'], domain=ms),
        helper.make_node('QuickGelu', ['g2'], ['g3'], domain=ms, alpha=1.5),
        helper.make_node('SkipLayerNormalization', ['g3', 'skip', 'gamma', 'beta', 'bias'], ['s', '', '', 'sum'],
                         domain=ms, epsilon=1e-5),
        helper.make_node('Gelu', ['s'], ['g4'], domain=ms),
        helper.make_node('SimplifiedLayerNormalization', ['g4', 'gamma2'], ['y'], axis=-1, epsilon=1e-5),
    ]
    inits = [w('w1', d, d), w('b1', d), w('b2', d), w('gamma', d), w('beta', d), w('bias', d), w('gamma2', d)]
    graph = helper.make_graph(
        nodes, 'contrib',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['batch', n, d]),
         helper.make_tensor_value_info('skip', TensorProto.FLOAT, ['batch', n, d])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['batch', n, d]),
         helper.make_tensor_value_info('sum', TensorProto.FLOAT, ['batch', n, d])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17), helper.make_opsetid(ms, 1)],
                              producer_name='tidytensor-tests')
    model.ir_version = 8
    onnx.save_model(model, os.path.join(OUT, 'contrib.onnx'))


def bad_models():
    """Files a loader must refuse with a clear error (written without the checker)."""
    x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info('y', TensorProto.FLOAT, [2])
    def model(nodes, inits=()):
        return helper.make_model(helper.make_graph(nodes, 'bad', [x], [y], list(inits)),
                                 opset_imports=[helper.make_opsetid('', 13)])

    def write(m, name):
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(m.SerializeToString())
    # An op tidytensor does not run (nor does ONNX define it).
    write(model([helper.make_node('Frobnicate', ['x'], ['y'])]), 'bad_op.onnx')
    # A node reading a value nothing gives.
    write(model([helper.make_node('Add', ['x', 'nowhere'], ['y'])]), 'bad_missing.onnx')
    # External data outside the model's folder.
    t = numpy_helper.from_array(np.ones(2, np.float32), 'b')
    t.ClearField('raw_data')
    t.data_location = TensorProto.EXTERNAL
    entry = t.external_data.add()
    entry.key, entry.value = 'location', '../escape.data'
    write(model([helper.make_node('Add', ['x', 'b'], ['y'])], [t]), 'bad_escape.onnx')
    # An int64 initializer that int32 cannot hold.
    big = numpy_helper.from_array(np.array([2**40, 1], np.int64), 'big')
    write(model([helper.make_node('Cast', ['big'], ['c'], to=TensorProto.FLOAT),
                 helper.make_node('Add', ['x', 'c'], ['y'])], [big]), 'bad_int64.onnx')


if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    save(cnn(13), 13, 'cnn.onnx')
    save(cnn(9), 9, 'cnn_opset9.onnx')
    save(cnn(13), 13, 'cnn_external.onnx', external=True)
    save(encoder(), 18, 'encoder.onnx')
    save(recurrent(), 14, 'recurrent.onnx')
    save(control_flow(), 13, 'control_flow.onnx')
    contrib()
    bad_models()
    print('written to', os.path.normpath(OUT))
