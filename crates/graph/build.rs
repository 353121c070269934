//! Compiles ONNX's own `onnx.proto` (from the `onnx` package on PyPI) into Rust types with
//! prost; protox is the protobuf compiler, in Rust, so the build needs no `protoc`.

fn main() {
    println!("cargo:rerun-if-changed=proto/onnx.proto");
    let files = protox::compile(["onnx.proto"], ["proto"]).expect("proto/onnx.proto compiles");
    prost_build::Config::new().compile_fds(files).expect("prost generates the ONNX types");
}
