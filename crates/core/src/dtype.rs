use crate::{bail, Result};

/// The element types tidytensor stores. Numeric dtypes live on the backends. `string` tensors
/// live in host memory on every backend (as in tfjs's GPU backends): layout ops move them
/// through integer codes (see `ops::strings`). A `complex64` tensor is a float32 buffer of
/// (real, imaginary) pairs that only the complex ops read (see `ops::complex`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    Float32,
    Int32,
    Bool,
    String,
    Complex64,
}

impl DType {
    pub fn parse(name: &str) -> Result<DType> {
        Ok(match name {
            "float32" => DType::Float32,
            "int32" => DType::Int32,
            "bool" => DType::Bool,
            "string" => DType::String,
            "complex64" => DType::Complex64,
            other => bail!("Unknown data type {other}"),
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::Float32 => "float32",
            DType::Int32 => "int32",
            DType::Bool => "bool",
            DType::String => "string",
            DType::Complex64 => "complex64",
        }
    }

    /// Bytes per element, as tfjs counts them (bool is one byte; a complex value is its two
    /// float32 parts). Strings have no fixed size: their UTF-8 bytes are counted per tensor.
    pub fn size_of(self) -> usize {
        match self {
            DType::Float32 | DType::Int32 => 4,
            DType::Bool => 1,
            DType::String => 0,
            DType::Complex64 => 8,
        }
    }

    /// Whether backends hold and compute on this dtype directly (strings and complex values
    /// reach kernels only through the conversions of their op families).
    pub fn is_numeric(self) -> bool {
        matches!(self, DType::Float32 | DType::Int32 | DType::Bool)
    }

    /// tfjs `upcastType`: complex64 > float32 > int32 > bool; strings only with strings
    /// (front-ends refuse the mix before asking).
    pub fn upcast(a: DType, b: DType) -> DType {
        use DType::*;
        match (a, b) {
            (String, _) | (_, String) => String,
            (Complex64, _) | (_, Complex64) => Complex64,
            (Float32, _) | (_, Float32) => Float32,
            (Int32, _) | (_, Int32) => Int32,
            _ => Bool,
        }
    }
}

/// The arm of a backend's exhaustive match on a kernel's dtype for strings and complex
/// values: the engine refuses or converts those before any kernel runs, so it is never
/// reached (and were it reached, the binding turns the panic into a JS error).
#[cold]
pub fn numeric_only(d: DType) -> ! {
    panic!("kernels see numeric dtypes only, but got {}", d.name())
}

/// JavaScript `ToInt32`, which is how tfjs stores a number into an int32 tensor (an
/// `Int32Array`): truncate toward zero, wrap modulo 2^32; NaN and ±Infinity become 0.
#[inline]
pub fn js_to_int32(x: f64) -> i32 {
    if x > -2147483649.0 && x < 2147483648.0 {
        x as i32
    } else if !x.is_finite() {
        0
    } else {
        x.trunc().rem_euclid(4294967296.0) as u32 as i32
    }
}

/// Tensor values in host memory: the unit of upload and readback.
#[derive(Clone, Debug, PartialEq)]
pub enum HostData {
    F32(Vec<f32>),
    I32(Vec<i32>),
    /// One byte per element, 0 or 1.
    Bool(Vec<u8>),
}

impl HostData {
    pub fn dtype(&self) -> DType {
        match self {
            HostData::F32(_) => DType::Float32,
            HostData::I32(_) => DType::Int32,
            HostData::Bool(_) => DType::Bool,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            HostData::F32(v) => v.len(),
            HostData::I32(v) => v.len(),
            HostData::Bool(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the values take (bool is one byte per element).
    pub fn byte_len(&self) -> usize {
        self.len() * self.dtype().size_of()
    }

    /// Values of a numeric dtype from f64s, converted the way tfjs stores them
    /// (int32 is [`js_to_int32`], bool is `x != 0`).
    pub fn from_f64(dtype: DType, values: impl IntoIterator<Item = f64>) -> HostData {
        let it = values.into_iter();
        match dtype {
            DType::Float32 => HostData::F32(it.map(|v| v as f32).collect()),
            d @ (DType::String | DType::Complex64) => numeric_only(d),
            DType::Int32 => HostData::I32(it.map(js_to_int32).collect()),
            DType::Bool => HostData::Bool(it.map(|v| (v != 0.0) as u8).collect()),
        }
    }

    /// Every value as f64 (tests and printing).
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            HostData::F32(v) => v.iter().map(|&x| x as f64).collect(),
            HostData::I32(v) => v.iter().map(|&x| x as f64).collect(),
            HostData::Bool(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }
}
