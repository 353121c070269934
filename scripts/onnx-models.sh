#!/usr/bin/env bash
# Writes the ONNX models `npm run bench` times and scripts/onnx-backend.sh checks against
# onnxruntime-node (scripts/onnx_models.py: ResNet-18, MobileNetV2, a BERT-like encoder, random
# weights) into DIR, with the `onnx` package from PyPI (scripts/onnx-venv.sh).
#
#   scripts/onnx-models.sh DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: scripts/onnx-models.sh DIR}
PY=$("$ROOT/scripts/onnx-venv.sh")
"$PY" "$ROOT/scripts/onnx_models.py" "$OUT"
