#!/usr/bin/env bash
# ONNX's own backend tests through tf.loadOnnxModel (scripts/onnx-backend.js): installs the
# `onnx` package from PyPI into a scratch virtual environment (scripts/onnx-venv.sh), writes the
# test data with it (scripts/onnx_backend_data.py: the node cases it generates, the model cases
# it ships), then runs every case on each backend given (default: cpu). Prints pass/fail per op
# and `onnx backend: P passed / F failed / U unsupported`. Then the bench's exported models
# (scripts/onnx_models.py: ResNet-18, MobileNetV2, a BERT-like encoder) are compared with
# onnxruntime-node on each backend (scripts/onnx-models-check.js). Exits 1 on a failure or a leak.
#
#   scripts/onnx-backend.sh [cpu] [wgpu]       (ONNX_BACKEND_DIR: the scratch folder)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${ONNX_BACKEND_DIR:-${TMPDIR:-/tmp}/tidytensor-onnx-backend}
PY=$("$ROOT/scripts/onnx-venv.sh")
"$PY" "$ROOT/scripts/onnx_backend_data.py" "$DIR/data"
"$PY" "$ROOT/scripts/onnx_models.py" "$DIR/models"
status=0
for backend in "${@:-cpu}"; do
  echo "# ONNX backend tests on the $backend backend"
  TIDYTENSOR_BACKEND=$backend node "$ROOT/scripts/onnx-backend.js" "$DIR/data" "--backend=$backend" || status=1
  echo "# ONNX models against onnxruntime-node on the $backend backend"
  TIDYTENSOR_BACKEND=$backend node "$ROOT/scripts/onnx-models-check.js" "$DIR/models" || status=1
done
exit $status
