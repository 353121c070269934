'use strict';
// The chained casts tfjs 4.22 still registers on Tensor.prototype (public/chained_ops/to_*.ts):
// each checks that the tensor is alive, then casts, so a float32 tensor's toFloat() is a new
// tensor (a different id), not the same one.
function installCastMethods(TensorClass, cast) {
  TensorClass.prototype.toFloat = function toFloat() {
    this.throwIfDisposed();
    return cast(this, 'float32');
  };
  TensorClass.prototype.toInt = function toInt() {
    this.throwIfDisposed();
    return cast(this, 'int32');
  };
  TensorClass.prototype.toBool = function toBool() {
    this.throwIfDisposed();
    return cast(this, 'bool');
  };
}

module.exports = { installCastMethods };
