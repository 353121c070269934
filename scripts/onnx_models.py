"""Writes the ONNX models `npm run bench` times against onnxruntime-node (random weights, fixed
seed; no model hub is reachable): ResNet-18 and MobileNetV2 at 224×224, and a BERT-like
encoder (4 layers, hidden 256, 4 heads, sequence 128), built with onnx's helper in the
layouts PyTorch exports them in.

    python3 scripts/onnx_models.py OUT
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(11)


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, base):
        self.n += 1
        return f'{base}_{self.n}'

    def weight(self, shape, scale=None):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        scale = scale if scale is not None else (2.0 / fan_in) ** 0.5
        t = numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), self.name('w'))
        self.inits.append(t)
        return t.name

    def const(self, values, dtype=np.int64):
        t = numpy_helper.from_array(np.array(values, dtype=dtype), self.name('c'))
        self.inits.append(t)
        return t.name

    def op(self, op, inputs, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def conv_bn(self, x, cin, cout, k, stride=1, group=1, act='Relu'):
        w = self.weight([cout, cin // group, k, k])
        b = self.weight([cout], 0.1)
        y = self.op('Conv', [x, w, b], kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)
        if act == 'Relu':
            y = self.op('Relu', [y])
        elif act == 'Relu6':
            y = self.op('Clip', [y, self.const(0.0, np.float32), self.const(6.0, np.float32)])
        return y

    def model(self, inputs, outputs, name):
        g = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)], producer_name='tidytensor-bench')
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def resnet18():
    b = Builder()
    x = b.conv_bn('input', 3, 64, 7, 2)
    x = b.op('MaxPool', [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)]:
        y = b.conv_bn(x, cin, cout, 3, stride)
        y = b.conv_bn(y, cout, cout, 3, 1, act=None)
        short = x if stride == 1 and cin == cout else b.conv_bn(x, cin, cout, 1, stride, act=None)
        x = b.op('Relu', [b.op('Add', [y, short])])
        cin = cout
    x = b.op('GlobalAveragePool', [x])
    x = b.op('Flatten', [x])
    x = b.op('Gemm', [x, b.weight([1000, 512]), b.weight([1000], 0.01)], transB=1)
    return b.model([helper.make_tensor_value_info('input', TensorProto.FLOAT, ['N', 3, 224, 224])],
                   [helper.make_tensor_value_info(x, TensorProto.FLOAT, ['N', 1000])], 'resnet18')


def mobilenetv2():
    b = Builder()
    x = b.conv_bn('input', 3, 32, 3, 2, act='Relu6')
    cin = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x if t == 1 else b.conv_bn(x, cin, hidden, 1, act='Relu6')
            y = b.conv_bn(y, hidden, hidden, 3, stride, group=hidden, act='Relu6')
            y = b.conv_bn(y, hidden, c, 1, act=None)
            x = b.op('Add', [x, y]) if stride == 1 and cin == c else y
            cin = c
    x = b.conv_bn(x, cin, 1280, 1, act='Relu6')
    x = b.op('GlobalAveragePool', [x])
    x = b.op('Flatten', [x])
    x = b.op('Gemm', [x, b.weight([1000, 1280]), b.weight([1000], 0.01)], transB=1)
    return b.model([helper.make_tensor_value_info('input', TensorProto.FLOAT, ['N', 3, 224, 224])],
                   [helper.make_tensor_value_info(x, TensorProto.FLOAT, ['N', 1000])], 'mobilenetv2')


def encoder(layers=4, d=256, heads=4, seq=128, vocab=1000):
    b = Builder()
    h = b.op('Gather', [b.weight([vocab, d], 0.02), 'input_ids'], axis=0)
    h = b.op('Add', [h, b.weight([seq, d], 0.02)])
    hd = d // heads
    for _ in range(layers):
        def proj(x, n_in, n_out):
            return b.op('Add', [b.op('MatMul', [x, b.weight([n_in, n_out], 0.02)]), b.weight([n_out], 0.01)])

        heads_shape = b.const([0, seq, heads, hd])
        q = b.op('Transpose', [b.op('Reshape', [proj(h, d, d), heads_shape])], perm=[0, 2, 1, 3])
        k = b.op('Transpose', [b.op('Reshape', [proj(h, d, d), heads_shape])], perm=[0, 2, 3, 1])
        v = b.op('Transpose', [b.op('Reshape', [proj(h, d, d), heads_shape])], perm=[0, 2, 1, 3])
        s = b.op('Div', [b.op('MatMul', [q, k]), b.const(float(np.sqrt(hd)), np.float32)])
        a = b.op('Softmax', [s], axis=-1)
        o = b.op('Reshape', [b.op('Transpose', [b.op('MatMul', [a, v])], perm=[0, 2, 1, 3]), b.const([0, seq, d])])
        h = b.op('LayerNormalization', [b.op('Add', [proj(o, d, d), h]), b.weight([d], 0.1), b.weight([d], 0.1)], axis=-1)
        f = proj(h, d, 4 * d)
        f = b.op('Mul', [b.op('Mul', [f, b.const(0.5, np.float32)]),
                         b.op('Add', [b.op('Erf', [b.op('Div', [f, b.const(float(np.sqrt(2)), np.float32)])]),
                                      b.const(1.0, np.float32)])])
        h = b.op('LayerNormalization', [b.op('Add', [proj(f, 4 * d, d), h]), b.weight([d], 0.1), b.weight([d], 0.1)],
                 axis=-1)
    return b.model([helper.make_tensor_value_info('input_ids', TensorProto.INT64, ['N', seq])],
                   [helper.make_tensor_value_info(h, TensorProto.FLOAT, ['N', seq, d])], 'encoder')


if __name__ == '__main__':
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in [('resnet18', resnet18), ('mobilenetv2', mobilenetv2), ('encoder', encoder)]:
        onnx.save_model(make(), os.path.join(out, f'{name}.onnx'))
    print('written to', out)
