#!/usr/bin/env bash
# ONNX's own backend tests through tf.loadOnnxModel (scripts/onnx-backend.js): installs the
# `onnx` package from PyPI into a scratch virtual environment, writes the test data with it
# (scripts/onnx_backend_data.py: the node cases it generates, the model cases it ships), then
# runs every case on each backend given (default: cpu). Prints pass/fail per op and, last,
# `onnx backend: P passed / F failed / U unsupported`; exits 1 on a failure or a leak.
#
#   scripts/onnx-backend.sh [cpu] [wgpu]       (ONNX_BACKEND_DIR: the scratch folder)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${ONNX_BACKEND_DIR:-${TMPDIR:-/tmp}/tidytensor-onnx-backend}
# The onnx release whose opsets (up to 28) and test cases the loader is written against.
ONNX_VERSION=1.23.2
if [ ! -x "$DIR/venv/bin/python" ] || ! "$DIR/venv/bin/python" -c "import onnx, sys; sys.exit(onnx.__version__ != '$ONNX_VERSION')" 2>/dev/null; then
  rm -rf "$DIR/venv"
  python3 -m venv "$DIR/venv"
  "$DIR/venv/bin/pip" install --quiet --disable-pip-version-check "onnx==$ONNX_VERSION"
fi
"$DIR/venv/bin/python" "$ROOT/scripts/onnx_backend_data.py" "$DIR/data"
status=0
for backend in "${@:-cpu}"; do
  echo "# ONNX backend tests on the $backend backend"
  TIDYTENSOR_BACKEND=$backend node "$ROOT/scripts/onnx-backend.js" "$DIR/data" "--backend=$backend" || status=1
done
exit $status
