#!/usr/bin/env bash
# Prints the python of the scratch virtual environment the ONNX scripts share, with the `onnx`
# release the loader is written against (its opsets, up to 28, and test cases) installed from
# PyPI the first time.
#
#   PY=$(scripts/onnx-venv.sh)        (ONNX_BACKEND_DIR: the scratch folder)
set -euo pipefail
VENV=${ONNX_BACKEND_DIR:-${TMPDIR:-/tmp}/tidytensor-onnx-backend}/venv
ONNX_VERSION=1.23.2
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import onnx, sys; sys.exit(onnx.__version__ != '$ONNX_VERSION')" 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "onnx==$ONNX_VERSION" >&2
fi
echo "$VENV/bin/python"
