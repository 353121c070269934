//! Compiles ONNX's own `onnx.proto` (from the `onnx` package on PyPI) into Rust types with
//! prost; protox is the protobuf compiler, in Rust, so the build needs no `protoc`.

fn main() {
    let proto = "proto/onnx.proto";
    println!("cargo:rerun-if-changed={proto}");
    let files = protox::compile([proto], ["proto"]).expect("onnx.proto compiles");
    prost_build::Config::new().compile_fds(files).expect("prost generates the ONNX types");
}
