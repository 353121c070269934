'use strict';
// Finds and loads the native addon, in this order (napi-rs's convention):
//   1. tidytensor.node beside this file: a build from source (`npm install` in a git checkout,
//      the install script's fallback, or TIDYTENSOR_BUILD_FROM_SOURCE=1);
//   2. the prebuilt package for this platform, tidytensor-<platform> (an optionalDependency;
//      npm installs only the one whose os/cpu/libc match);
// and otherwise throws one error that names the platform and says how to build from source.
const fs = require('fs');
const path = require('path');

const ROOT = __dirname;
const LOCAL = path.join(ROOT, 'tidytensor.node');

// glibc or musl: Node's diagnostic report names the glibc it runs on (napi-rs checks the same).
function isMusl() {
  try {
    const report = process.report && process.report.getReport();
    const header = report && (typeof report === 'string' ? JSON.parse(report) : report).header;
    return !(header && header.glibcVersionRuntime);
  } catch {
    return false;
  }
}

// This machine's platform as the npm/<platform> packages name it: linux-x64-gnu, darwin-arm64, ...
function platformId() {
  const { platform, arch } = process;
  if (platform === 'linux') return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`;
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

const packageName = (id = platformId()) => `tidytensor-${id}`;

// Loads the prebuilt package's addon, or returns null when that package is not installed.
function loadPrebuilt(errors = []) {
  const name = packageName();
  try {
    return require(name);
  } catch (e) {
    if (!(e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes(name))) errors.push(`${name}: ${e.message}`);
    return null;
  }
}

function loadAddon() {
  const errors = [];
  if (fs.existsSync(LOCAL)) {
    try {
      return require(LOCAL);
    } catch (e) {
      errors.push(`${LOCAL}: ${e.message}`);
    }
  }
  const addon = loadPrebuilt(errors);
  if (addon) return addon;
  const id = platformId();
  const prebuilt = Object.keys(require('./package.json').optionalDependencies || {}).map((n) => n.replace('tidytensor-', ''));
  const err = new Error(
    `tidytensor: no native addon could be loaded for ${id}: neither the prebuilt package ${packageName(id)} ` +
    `nor a build from source (${LOCAL}). Prebuilt packages exist for ${prebuilt.join(', ')}. ` +
    'To build from source, install Rust (https://rustup.rs), then run ' +
    '`TIDYTENSOR_BUILD_FROM_SOURCE=1 npm rebuild tidytensor`.' +
    (errors.length ? `\nLoad errors:\n  ${errors.join('\n  ')}` : ''));
  err.code = 'TIDYTENSOR_NO_ADDON';
  throw err;
}

module.exports = { platformId, packageName, loadPrebuilt, loadAddon, LOCAL };
