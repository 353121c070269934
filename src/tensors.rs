//! Values in and out: tensors from JS typed arrays, and reading tensors back.

use crate::promise::Settle;
use crate::{engine, id, make, parse_dtype};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::{bail, shape, DType, Encoding, HostData};

fn dims(shape: &[i64]) -> tidytensor_core::Result<Vec<usize>> {
    shape::from_user(shape)
}

/// A tensor from a typed array whose type matches `dtype` (bool as 0/1 bytes).
#[napi]
pub fn make_tensor(values: Either3<&[f32], &[i32], &[u8]>, shape: Vec<i64>, dtype: String) -> Result<f64> {
    make(|e| {
        let dtype = parse_dtype(&dtype)?;
        let shape = dims(&shape)?;
        e.check_size(&shape, dtype)?; // before the values are copied
        let data = match (values, dtype) {
            (Either3::A(v), DType::Float32) => HostData::F32(v.to_vec()),
            (Either3::B(v), DType::Int32) => HostData::I32(v.to_vec()),
            (Either3::C(v), DType::Bool) => HostData::Bool(v.iter().map(|&b| (b != 0) as u8).collect()),
            _ => bail!("makeTensor: the typed array does not match dtype {}", dtype.name()),
        };
        e.tensor(data, &shape)
    })
}

/// A tensor's values on their way to JavaScript: a Float32Array, Int32Array or Uint8Array
/// (bool) whose memory V8 owns. The garbage collector frees such an array as soon as it is
/// unreachable, and the allocator hands the memory to the next read (see `tune_allocator`),
/// so a loop of reads maps no fresh pages, which costs more than the read itself (an
/// external array's memory comes back only through a finalizer that Node runs after the
/// loop yields). The host copy goes back to the backends' pool at once.
pub struct Values(HostData);

impl TypeName for Values {
    fn type_name() -> &'static str {
        "TypedArray"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for Values {
    unsafe fn to_napi_value(env: sys::napi_env, v: Self) -> Result<sys::napi_value> {
        let array = js_typed_array(env, &v.0);
        tidytensor_backends::recycle(v.0);
        array
    }
}

/// A typed array of V8's own holding a copy of `data`.
///
/// # Safety
/// `env` must be the current JavaScript environment, on its thread.
unsafe fn js_typed_array(env: sys::napi_env, data: &HostData) -> Result<sys::napi_value> {
    use sys::TypedarrayType as T;
    let (kind, len, bytes): (_, usize, &[u8]) = match data {
        HostData::F32(x) => (T::float32_array, x.len(), std::slice::from_raw_parts(x.as_ptr().cast(), x.len() * 4)),
        HostData::I32(x) => (T::int32_array, x.len(), std::slice::from_raw_parts(x.as_ptr().cast(), x.len() * 4)),
        HostData::Bool(x) => (T::uint8_array, x.len(), x.as_slice()),
    };
    // A Node Buffer's memory is not zero-filled first (an ArrayBuffer's is), and it is freed by
    // the garbage collector like an ArrayBuffer's; the typed array views its ArrayBuffer.
    let (mut data, mut node_buffer) = (std::ptr::null_mut(), std::ptr::null_mut());
    check_status!(sys::napi_create_buffer(env, bytes.len(), &mut data, &mut node_buffer), "Failed to create a Buffer")?;
    if !bytes.is_empty() {
        tidytensor_backends::copy_bytes(std::slice::from_raw_parts_mut(data.cast(), bytes.len()), bytes);
    }
    let (mut buffer, mut offset, mut array) = (std::ptr::null_mut(), 0usize, std::ptr::null_mut());
    check_status!(
        sys::napi_get_typedarray_info(
            env,
            node_buffer,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut buffer,
            &mut offset
        ),
        "Failed to read a Buffer"
    )?;
    check_status!(
        sys::napi_create_typedarray(env, kind, len, buffer, offset, &mut array),
        "Failed to create a typed array"
    )?;
    Ok(array)
}

/// A napi value made already (returned as it is).
pub struct Made(sys::napi_value);

impl TypeName for Made {
    fn type_name() -> &'static str {
        "TypedArray"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for Made {
    unsafe fn to_napi_value(_: sys::napi_env, v: Self) -> Result<sys::napi_value> {
        Ok(v.0)
    }
}

/// A fresh copy of the tensor's values: Float32Array, Int32Array or Uint8Array (bool).
#[napi]
pub fn data_sync(env: &Env, x: f64) -> Result<Made> {
    let env = env.raw();
    // Copied straight from host memory into JavaScript's array where the backend allows.
    // SAFETY: `env` is this call's environment, on its thread.
    let made = engine(|e| e.read_with(id(x), |values| unsafe { js_typed_array(env, values) }))?;
    made.map(Made)
}

/// `tensor.data()`: a Promise of the values. The read is started now (so it survives a
/// `dispose` right after) and completes off the JS thread on backends that need to wait.
#[napi]
pub fn data_async(env: &Env, x: f64) -> Result<Object<'_>> {
    engine(|e| e.info(id(x)).map(|_| ()))?;
    let (mut settle, promise) = Settle::<Values>::new(env, "read")?;
    let done = move |r: tidytensor_core::Result<HostData>| {
        settle.finish(move |_| r.map(Values).map_err(|e| Error::from_reason(e.0)))
    };
    engine(|e| e.read_async(id(x), Box::new(done)))?;
    Ok(promise)
}

/// A model's weight from its bytes as the weight manifest stores them (`encoding`: "values",
/// or the quantization "uint8", "uint16" with `scale` and `min`, or "float16"): the copy a
/// thread already holds when one loaded the same bytes, else a new tensor others will share
/// (`Engine::weight`).
#[napi]
pub fn weight_tensor(
    bytes: &[u8],
    shape: Vec<i64>,
    dtype: String,
    encoding: String,
    scale: f64,
    min: f64,
) -> Result<f64> {
    make(|e| {
        let encoding = match encoding.as_str() {
            "values" => Encoding::Values,
            "uint8" => Encoding::Uint8 { scale, min },
            "uint16" => Encoding::Uint16 { scale, min },
            "float16" => Encoding::Float16,
            other => bail!("Unknown weight encoding {other}"),
        };
        e.weight(bytes, encoding, parse_dtype(&dtype)?, &dims(&shape)?)
    })
}

/// The shape JS wrote into the meta buffer (`[_, rank, ...dims]`) before a `make*` call, and
/// the first `size(shape)` of `values` (JS may stage small tensors in a longer, reused array).
/// The size is checked against the backend's memory before the values are copied, so a huge
/// array is refused, not an allocation failure that aborts the process.
fn from_meta<T: Copy>(
    e: &tidytensor_core::Engine,
    values: &[T],
    dtype: DType,
) -> tidytensor_core::Result<(Vec<T>, Vec<usize>)> {
    let dims = shape::from_user(&crate::read_meta())?;
    e.check_size(&dims, dtype)?;
    let n = shape::size(&dims);
    if values.len() < n {
        bail!(
            "Based on the provided shape, [{}], the tensor should have {n} values but has {}",
            shape::fmt(&dims),
            values.len()
        );
    }
    Ok((values[..n].to_vec(), dims))
}

/// Fast `makeTensor` for float32: the shape comes from the meta buffer, so creating a small
/// tensor converts no JS array or string.
#[napi]
pub fn make_f32(values: &[f32]) -> Result<f64> {
    make(|e| {
        let (v, dims) = from_meta(e, values, DType::Float32)?;
        e.tensor(HostData::F32(v), &dims)
    })
}

/// Like [`make_f32`] for int32.
#[napi]
pub fn make_i32(values: &[i32]) -> Result<f64> {
    make(|e| {
        let (v, dims) = from_meta(e, values, DType::Int32)?;
        e.tensor(HostData::I32(v), &dims)
    })
}

/// Like [`make_f32`] for bool (bytes, nonzero is true).
#[napi]
pub fn make_bool(values: &[u8]) -> Result<f64> {
    make(|e| {
        let (v, dims) = from_meta(e, values, DType::Bool)?;
        e.tensor(HostData::Bool(v.into_iter().map(|b| (b != 0) as u8).collect()), &dims)
    })
}

/// A string tensor: the values' bytes one after another, and each value's length.
#[napi]
pub fn make_strings(bytes: &[u8], lengths: &[u32], shape: Vec<i64>) -> Result<f64> {
    make(|e| {
        let shape = dims(&shape)?;
        let total: u64 = lengths.iter().map(|&n| n as u64).sum();
        if total != bytes.len() as u64 {
            bail!("makeStrings: the lengths add up to {total} bytes, but {} were given", bytes.len());
        }
        let mut at = 0;
        let values = lengths
            .iter()
            .map(|&n| {
                let v = bytes[at..at + n as usize].to_vec();
                at += n as usize;
                v
            })
            .collect();
        e.strings(values, &shape)
    })
}

/// A string tensor's values, as [`make_strings`] takes them.
#[napi(object)]
pub struct StringValues {
    pub bytes: Uint8Array,
    pub lengths: Uint32Array,
}

#[napi]
pub fn read_strings(x: f64) -> Result<StringValues> {
    let values = engine(|e| e.read_strings(id(x)))?;
    let lengths = values.iter().map(|v| v.len() as u32).collect::<Vec<_>>();
    Ok(StringValues { bytes: Uint8Array::new(values.concat()), lengths: Uint32Array::new(lengths) })
}
