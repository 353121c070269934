#!/usr/bin/env bash
# Writes the ONNX models `npm run bench` times (scripts/onnx_models.py: ResNet-18, MobileNetV2,
# a BERT-like encoder, random weights) into DIR, with the `onnx` package from PyPI in the same
# scratch virtual environment as scripts/onnx-backend.sh.
#
#   scripts/onnx-models.sh DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: scripts/onnx-models.sh DIR}
VENV=${ONNX_BACKEND_DIR:-${TMPDIR:-/tmp}/tidytensor-onnx-backend}/venv
ONNX_VERSION=1.23.2
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import onnx, sys; sys.exit(onnx.__version__ != '$ONNX_VERSION')" 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "onnx==$ONNX_VERSION"
fi
"$VENV/bin/python" "$ROOT/scripts/onnx_models.py" "$OUT"
