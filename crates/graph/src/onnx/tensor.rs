//! ONNX tensors (initializers, constants) as engine tensors: float types load as float32,
//! integer types as int32 where every value fits (ONNX's int64 shapes and indices), bool as
//! bool; the others are refused with the tensor's name.

use super::proto::{tensor_proto::DataLocation, tensor_proto::DataType, TensorProto};
use std::path::{Component, Path};
use tidytensor_core::{bail, DType, Engine, HostData, Result, TensorId};

/// The dtype an ONNX element type loads as.
pub(crate) fn dtype_of(elem_type: i32) -> Option<DType> {
    use DataType as D;
    Some(match DataType::try_from(elem_type).ok()? {
        D::Float | D::Double | D::Float16 => DType::Float32,
        D::Int8 | D::Uint8 | D::Int16 | D::Uint16 | D::Int32 | D::Uint32 | D::Int64 | D::Uint64 => DType::Int32,
        D::Bool => DType::Bool,
        _ => return None,
    })
}

/// The element type of an op's outputs, from its inputs' (`inputs`, 0 where unknown) and its
/// attributes, for the ops whose integer results have a width of their own.
pub(crate) fn result_type(op: &str, attrs: &std::collections::HashMap<&str, f64>, inputs: &[i32]) -> Option<i32> {
    let input = |i: usize| inputs.get(i).copied().filter(|&t| t != 0);
    match op {
        "Cast" => attrs.get("to").map(|&t| t as i32),
        "CastLike" => input(1),
        "Identity" | "BitShift" | "BitwiseAnd" | "BitwiseOr" | "BitwiseXor" | "BitwiseNot" | "Reshape" | "Flatten"
        | "Squeeze" | "Unsqueeze" | "Transpose" => input(0),
        "QuantizeLinear" => match attrs.get("output_dtype").map(|&t| t as i32) {
            Some(t) if t != 0 => Some(t),
            _ => input(2).or(Some(DataType::Uint8 as i32)),
        },
        "DynamicQuantizeLinear" => Some(DataType::Uint8 as i32),
        "QLinearMatMul" | "QLinearConv" => input(7),
        "MatMulInteger" | "ConvInteger" => Some(DataType::Int32 as i32),
        _ => None,
    }
}

/// The bits of an integer element type narrower than int32, and whether it is signed.
pub(crate) fn narrow_int(elem_type: i32) -> Option<(u32, bool)> {
    use DataType as D;
    match DataType::try_from(elem_type).ok()? {
        D::Int8 => Some((8, true)),
        D::Uint8 => Some((8, false)),
        D::Int16 => Some((16, true)),
        D::Uint16 => Some((16, false)),
        _ => None,
    }
}

/// ONNX's name of an element type (`INT64`).
pub(crate) fn type_name(elem_type: i32) -> String {
    DataType::try_from(elem_type).map_or_else(|_| format!("#{elem_type}"), |d| d.as_str_name().to_string())
}

/// An int64 as int32, or an error naming `what` where it does not fit.
pub(crate) fn to_i32(v: i64, what: &str) -> Result<i32> {
    match i32::try_from(v) {
        Ok(v) => Ok(v),
        Err(_) => bail!("{what} holds {v}, which does not fit in int32 (tidytensor's integer dtype)"),
    }
}

/// The bytes of an external-data tensor: `location` inside `folder` (never outside it),
/// `offset` and `length` as the entries say.
fn external(t: &TensorProto, folder: Option<&Path>, what: &str) -> Result<Vec<u8>> {
    let entry = |key: &str| t.external_data.iter().find(|e| e.key() == key).map(|e| e.value().to_string());
    let Some(location) = entry("location") else { bail!("{what} has external data without a location") };
    let Some(folder) = folder else {
        bail!("{what} is stored in the external file '{location}', but the model was not loaded from a folder")
    };
    let rel = Path::new(&location);
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        bail!("{what} is stored in '{location}', outside the model's folder");
    }
    let path = folder.join(rel);
    let number = |key: &str| -> Result<Option<u64>> {
        match entry(key) {
            None => Ok(None),
            Some(s) => match s.parse() {
                Ok(n) => Ok(Some(n)),
                Err(_) => bail!("{what} has external data {key} '{s}', which is not a number"),
            },
        }
    };
    let (offset, length) = (number("offset")?.unwrap_or(0), number("length")?);
    let meta = std::fs::metadata(&path)
        .map_err(|err| tidytensor_core::Error::new(format!("{what}: cannot read '{}': {err}", path.display())))?;
    if !meta.is_file() {
        bail!("{what}: '{}' is not a regular file", path.display());
    }
    let length = length.unwrap_or(meta.len().saturating_sub(offset));
    if offset.checked_add(length).is_none_or(|end| end > meta.len()) {
        bail!("{what}: '{}' has {} bytes, fewer than offset {offset} + length {length}", path.display(), meta.len());
    }
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(&path)
        .map_err(|err| tidytensor_core::Error::new(format!("{what}: cannot read '{}': {err}", path.display())))?;
    let mut bytes = vec![0u8; length as usize];
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.read_exact(&mut bytes))
        .map_err(|err| tidytensor_core::Error::new(format!("{what}: cannot read '{}': {err}", path.display())))?;
    Ok(bytes)
}

/// Little-endian elements of `width` bytes from `raw`, exactly `count` of them.
fn chunks<'a>(raw: &'a [u8], width: usize, count: usize, what: &str) -> Result<std::slice::ChunksExact<'a, u8>> {
    if raw.len() != width * count {
        bail!("{what} has {} bytes of data where its shape needs {}", raw.len(), width * count);
    }
    Ok(raw.chunks_exact(width))
}

/// Loads `t` as a tensor; its dtype as graph attributes name it.
pub(crate) fn load(
    e: &mut Engine,
    t: &TensorProto,
    folder: Option<&Path>,
    what: &str,
) -> Result<(TensorId, &'static str)> {
    let mut shape = Vec::with_capacity(t.dims.len());
    for &d in &t.dims {
        match usize::try_from(d) {
            Ok(d) => shape.push(d),
            Err(_) => bail!("{what} has dimension {d}"),
        }
    }
    let Some(count) = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).filter(|&n| n <= 1 << 31) else {
        bail!("{what} has shape {:?}: too many elements", t.dims);
    };
    let elem = t.data_type();
    let Ok(data_type) = DataType::try_from(elem) else {
        bail!("{what} has element type #{elem}, which ONNX does not define")
    };
    let ext;
    let raw: Option<&[u8]> = if t.data_location() == DataLocation::External {
        ext = external(t, folder, what)?;
        Some(&ext)
    } else if t.raw_data.as_ref().is_some_and(|r| !r.is_empty()) || count == 0 {
        Some(t.raw_data.as_deref().unwrap_or_default())
    } else {
        None
    };
    let want = |n: usize| -> Result<()> {
        if n != count {
            bail!("{what} has {n} values where its shape {:?} needs {count}", t.dims);
        }
        Ok(())
    };
    use DataType as D;
    let data = match data_type {
        D::Float => HostData::F32(match raw {
            Some(r) => chunks(r, 4, count, what)?.map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect(),
            None => {
                want(t.float_data.len())?;
                t.float_data.clone()
            }
        }),
        D::Double => HostData::F32(match raw {
            Some(r) => chunks(r, 8, count, what)?.map(|b| f64::from_le_bytes(b.try_into().unwrap()) as f32).collect(),
            None => {
                want(t.double_data.len())?;
                t.double_data.iter().map(|&v| v as f32).collect()
            }
        }),
        D::Float16 => HostData::F32(match raw {
            Some(r) => chunks(r, 2, count, what)?.map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            None => {
                want(t.int32_data.len())?;
                t.int32_data.iter().map(|&v| half::f16::from_bits(v as u16).to_f32()).collect()
            }
        }),
        D::Bool => HostData::Bool(match raw {
            Some(r) => chunks(r, 1, count, what)?.map(|b| (b[0] != 0) as u8).collect(),
            None => {
                want(t.int32_data.len())?;
                t.int32_data.iter().map(|&v| (v != 0) as u8).collect()
            }
        }),
        D::Int8 | D::Uint8 | D::Int16 | D::Uint16 | D::Int32 => {
            let width = match data_type {
                D::Int8 | D::Uint8 => 1,
                D::Int16 | D::Uint16 => 2,
                _ => 4,
            };
            HostData::I32(match raw {
                Some(r) => chunks(r, width, count, what)?
                    .map(|b| match data_type {
                        D::Int8 => b[0] as i8 as i32,
                        D::Uint8 => b[0] as i32,
                        D::Int16 => i16::from_le_bytes([b[0], b[1]]) as i32,
                        D::Uint16 => u16::from_le_bytes([b[0], b[1]]) as i32,
                        _ => i32::from_le_bytes(b.try_into().unwrap()),
                    })
                    .collect(),
                None => {
                    want(t.int32_data.len())?;
                    t.int32_data.clone()
                }
            })
        }
        D::Int64 | D::Uint32 | D::Uint64 => {
            let wide: Vec<i128> = match raw {
                Some(r) => match data_type {
                    D::Int64 => {
                        chunks(r, 8, count, what)?.map(|b| i64::from_le_bytes(b.try_into().unwrap()) as i128).collect()
                    }
                    D::Uint64 => {
                        chunks(r, 8, count, what)?.map(|b| u64::from_le_bytes(b.try_into().unwrap()) as i128).collect()
                    }
                    _ => {
                        chunks(r, 4, count, what)?.map(|b| u32::from_le_bytes(b.try_into().unwrap()) as i128).collect()
                    }
                },
                None if data_type == D::Int64 => {
                    want(t.int64_data.len())?;
                    t.int64_data.iter().map(|&v| v as i128).collect()
                }
                None => {
                    want(t.uint64_data.len())?;
                    t.uint64_data.iter().map(|&v| v as i128).collect()
                }
            };
            let mut out = Vec::with_capacity(wide.len());
            for v in wide {
                match i32::try_from(v) {
                    Ok(v) => out.push(v),
                    // ONNX writes INT64_MAX / INT64_MIN for "to the end" (Slice's ends): clamped,
                    // as any index past an axis means the same.
                    Err(_) if v >= i64::MAX as i128 => out.push(i32::MAX),
                    Err(_) if v <= i64::MIN as i128 => out.push(i32::MIN),
                    Err(_) => bail!("{what} holds {v}, which does not fit in int32 (tidytensor's integer dtype)"),
                }
            }
            HostData::I32(out)
        }
        other => bail!("{what} has element type {}, which tidytensor does not support", other.as_str_name()),
    };
    let dtype = match data.dtype() {
        DType::Float32 => "DT_FLOAT",
        DType::Int32 => "DT_INT32",
        _ => "DT_BOOL",
    };
    Ok((e.tensor(data, &shape)?, dtype))
}
