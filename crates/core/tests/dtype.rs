//! How values are stored: JavaScript `ToInt32` for int32 (an `Int32Array`), `x != 0` for bool
//! (a cast), and tfjs's dtype upcasting.

use tidytensor_core::{js_to_int32, DType, HostData};

#[test]
fn to_int32_is_javascript_toint32() {
    assert_eq!(js_to_int32(1.9), 1);
    assert_eq!(js_to_int32(-1.9), -1);
    assert_eq!(js_to_int32(-0.0), 0);
    assert_eq!(js_to_int32(f64::NAN), 0);
    assert_eq!(js_to_int32(f64::INFINITY), 0);
    assert_eq!(js_to_int32(f64::NEG_INFINITY), 0);
    assert_eq!(js_to_int32(2147483647.9), 2147483647);
    assert_eq!(js_to_int32(-2147483648.9), -2147483648);
    assert_eq!(js_to_int32(2147483648.0), -2147483648);
    assert_eq!(js_to_int32(4294967296.0 + 5.0), 5);
    assert_eq!(js_to_int32(-4294967296.0 - 5.5), -5);
    assert_eq!(js_to_int32(3e9), -1294967296);
    assert_eq!(js_to_int32(-3e9), 1294967296);
    assert_eq!(js_to_int32(1e300), 0, "1e300 is a multiple of 2^32");
}

#[test]
fn host_data_stores_as_tfjs() {
    let v = [1.5, -1.5, f64::NAN, 0.0, -0.0, 3e9];
    assert_eq!(HostData::from_f64(DType::Int32, v), HostData::I32(vec![1, -1, 0, 0, 0, -1294967296]));
    assert_eq!(HostData::from_f64(DType::Bool, v), HostData::Bool(vec![1, 1, 1, 0, 0, 1]));
    let f = HostData::from_f64(DType::Float32, [0.1, 16777217.0]);
    assert_eq!(f, HostData::F32(vec![0.1, 16777216.0]));
    assert_eq!(f.to_f64(), vec![0.1f32 as f64, 16777216.0]);
    assert_eq!((f.dtype(), f.len(), f.byte_len()), (DType::Float32, 2, 8));
    let b = HostData::Bool(vec![1, 0, 1]);
    assert_eq!((b.dtype(), b.byte_len()), (DType::Bool, 3), "bool is one byte per element");
    assert!(HostData::I32(vec![]).is_empty());
}

#[test]
fn dtypes_parse_and_upcast() {
    assert_eq!(DType::parse("int32").unwrap(), DType::Int32);
    assert_eq!(DType::parse("string").unwrap(), DType::String);
    assert_eq!(DType::parse("complex64").unwrap(), DType::Complex64);
    assert_eq!(DType::parse("float64").unwrap_err().0, "Unknown data type float64");
    assert_eq!(DType::upcast(DType::Bool, DType::Int32), DType::Int32);
    assert_eq!(DType::upcast(DType::Int32, DType::Float32), DType::Float32);
    assert_eq!(DType::upcast(DType::Bool, DType::Bool), DType::Bool);
    assert_eq!(DType::upcast(DType::Float32, DType::Complex64), DType::Complex64);
    assert_eq!(DType::upcast(DType::String, DType::String), DType::String);
    assert_eq!([DType::Float32, DType::Int32, DType::Bool].map(DType::size_of), [4, 4, 1]);
    assert_eq!(DType::Complex64.size_of(), 8, "a complex value is two float32s");
    assert!(!DType::String.is_numeric() && !DType::Complex64.is_numeric());
}
