#!/usr/bin/env bash
# Prepares, on this machine, what bench/device.sh needs on the GPU machine (which has neither
# Rust, Node nor the Vulkan loader; see the device README): builds the gpu_bench example in
# release into .device/ and downloads the Vulkan loader package into .gl/. Both folders are
# kept out of git through .git/info/exclude and travel with `carry`.
set -euo pipefail
cd "$(dirname "$0")/.."
for d in /.gl/ /.device/; do grep -qxF "$d" .git/info/exclude || echo "$d" >> .git/info/exclude; done
cargo build --release -p tidytensor-wgpu --example gpu_bench
mkdir -p .device && cp target/release/examples/gpu_bench .device/
mkdir -p .gl /tmp/amd64/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
# shellcheck disable=SC2086
apt-get $o update -q
# shellcheck disable=SC2086
(cd .gl && apt-get $o download libvulkan1)
ls -la .device .gl
