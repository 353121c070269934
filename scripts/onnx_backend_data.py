"""Writes the data of ONNX's own backend tests for scripts/onnx-backend.js: every node case
(onnx.backend.test.case.node, generated here as `backend-test-tools generate-data` writes the
model cases), and the model cases the `onnx` package ships (simple, pytorch-converted,
pytorch-operator, and the light models with the inputs ONNX's runner feeds them). Each case
is a folder: model.onnx, test_data_set_*/input_*.pb and output_*.pb, tolerance.json.

    python3 scripts/onnx_backend_data.py OUT
"""

import json
import os
import shutil
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.test.case import model as model_cases
from onnx.backend.test.case import node as node_cases


def write_case(folder, model, data_sets, rtol, atol):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'model.onnx'), 'wb') as f:
        f.write(model.SerializeToString())
    with open(os.path.join(folder, 'tolerance.json'), 'w') as f:
        json.dump({'rtol': rtol, 'atol': atol}, f)
    for i, (inputs, outputs) in enumerate(data_sets):
        d = os.path.join(folder, f'test_data_set_{i}')
        os.makedirs(d, exist_ok=True)
        for kind, values, infos in (('input', inputs, model.graph.input), ('output', outputs, model.graph.output)):
            for j, v in enumerate(values):
                if not infos[j].type.HasField('tensor_type'):
                    # Sequences, maps and optionals: tidytensor's graphs hold tensors only.
                    with open(os.path.join(folder, 'unsupported.txt'), 'w') as f:
                        f.write(f'{kind} {j} is not a tensor')
                    return
                proto = v if isinstance(v, onnx.TensorProto) else numpy_helper.from_array(np.asarray(v), infos[j].name)
                with open(os.path.join(d, f'{kind}_{j}.pb'), 'wb') as f:
                    f.write(proto.SerializeToString())


def main(out):
    shutil.rmtree(out, ignore_errors=True)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        cases = node_cases.collect_testcases(None)
    for case in cases:
        write_case(os.path.join(out, 'node', case.name), case.model, case.data_sets, case.rtol, case.atol)
    data = os.path.join(os.path.dirname(onnx.__file__), 'backend', 'test', 'data')
    for kind in ('simple', 'pytorch-converted', 'pytorch-operator'):
        shutil.copytree(os.path.join(data, kind), os.path.join(out, kind))
        for case in os.listdir(os.path.join(out, kind)):
            with open(os.path.join(out, kind, case, 'tolerance.json'), 'w') as f:
                json.dump({'rtol': 1e-3, 'atol': 1e-7}, f)
    # The light models: ONNX's runner feeds arange(n) / n in the input's shape (dimensions
    # without a value as 1) and compares with the output it ships.
    for case in model_cases.collect_testcases():
        if case.kind != 'real' or case.url is None:
            continue
        name = case.model_name
        model = onnx.load(os.path.join(data, 'light', f'light_{name}.onnx'))
        inits = {i.name for i in model.graph.initializer}
        inputs = []
        for x in model.graph.input:
            if x.name in inits:
                continue
            shape = tuple(d.dim_value if d.HasField('dim_value') else 1 for d in x.type.tensor_type.shape.dim)
            n = int(np.prod(shape))
            inputs.append(numpy_helper.from_array((np.arange(n).reshape(shape) / n).astype(np.float32), x.name))
        outputs = [onnx.load_tensor(os.path.join(data, 'light', f'light_{name}_output_0.pb'))]
        write_case(os.path.join(out, 'light', case.name), model, [(inputs, outputs)], case.rtol, case.atol)


if __name__ == '__main__':
    main(sys.argv[1])
