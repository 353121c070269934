//! Integer ops: the bit operations and shifts, and the quantized ops (QuantizeLinear and its
//! kin). Every integer type loads as int32, so a result whose value depends on its type's width
//! (a shift past 8 bits of an int8, a quantized uint8) is wrapped or saturated to the element
//! type the loader found for it (`_types`). Integer matmuls and convolutions run in float32,
//! exact while their sums stay below 2^24.

use super::conv::conv_of;
use super::*;
use crate::onnx::tensor::narrow_int;
use tidytensor_core::ops::BitOp;
use tidytensor_core::HostData;

/// ONNX's element types of the quantized results (`TensorProto.DataType`).
const UINT8: i32 = 2;
const INT8: i32 = 3;
const UINT16: i32 = 4;
const INT16: i32 = 5;
const INT32: i32 = 6;

impl Ctx<'_> {
    /// ONNX's element type of input `i`, where the loader knows it.
    fn elem(&self, i: usize) -> Option<i32> {
        let types = self.attrs().numbers("_types")?;
        types.get(i).map(|&t| t as i32).filter(|&t| t != 0)
    }
}

fn int_scalar(e: &mut Engine, v: i32) -> Result<TensorId> {
    e.tensor(HostData::I32(vec![v]), &[])
}

/// int32 values as a result of the narrower type `elem` holds them: its low bits, sign-extended
/// where it is signed.
fn wrap(e: &mut Engine, x: TensorId, elem: Option<i32>) -> Result<TensorId> {
    match elem.and_then(narrow_int) {
        Some((bits, true)) => {
            let s = int_scalar(e, 32 - bits as i32)?;
            let high = e.bitwise(BitOp::LeftShift, x, s)?;
            e.bitwise(BitOp::RightShift, high, s)
        }
        Some((bits, false)) => {
            let mask = int_scalar(e, (1 << bits) - 1)?;
            e.bitwise(BitOp::And, x, mask)
        }
        None => Ok(x),
    }
}

/// BitShift, BitwiseAnd/Or/Xor and BitwiseNot.
pub(super) fn bit_op(e: &mut Engine, c: &Ctx, op: &str) -> Result<TensorId> {
    let x = c.t(0)?;
    let y = match op {
        "BitwiseNot" => e.bitwise_not(x)?,
        "BitShift" => {
            let direction = c.attrs().string("direction").unwrap_or_default();
            let shift = match direction.to_ascii_uppercase().as_str() {
                "LEFT" => BitOp::LeftShift,
                "RIGHT" => BitOp::RightShift,
                _ => bail!("ONNX node '{}': BitShift's direction is '{direction}', not LEFT or RIGHT", c.node.name),
            };
            e.bitwise(shift, x, c.t(1)?)?
        }
        "BitwiseAnd" => e.bitwise(BitOp::And, x, c.t(1)?)?,
        "BitwiseOr" => e.bitwise(BitOp::Or, x, c.t(1)?)?,
        _ => e.bitwise(BitOp::Xor, x, c.t(1)?)?,
    };
    wrap(e, y, c.elem(0))
}

/// The range of a quantized type, or an error for the types tidytensor does not hold.
fn range(c: &Ctx, elem: i32) -> Result<(f64, f64)> {
    Ok(match elem {
        UINT8 => (0.0, 255.0),
        INT8 => (-128.0, 127.0),
        UINT16 => (0.0, 65535.0),
        INT16 => (-32768.0, 32767.0),
        INT32 => (i32::MIN as f64, i32::MAX as f64),
        other => bail!(
            "ONNX node '{}' quantizes to {}, which tidytensor does not support",
            c.node.name,
            crate::onnx::tensor::type_name(other)
        ),
    })
}

/// A scale or zero point shaped to broadcast over `x` of shape `xs`: one value for all, one per
/// index of `axis`, or (`block` > 0) one per block of `block` indices along `axis`.
fn quant_param(e: &mut Engine, c: &Ctx, p: TensorId, xs: &[usize]) -> Result<TensorId> {
    let ps = e.shape(p)?.to_vec();
    if ps.iter().product::<usize>() == 1 {
        return e.reshape(p, &[]);
    }
    let ax = axis(c.int("axis", 1), xs.len(), &c.node.name)?;
    let block = c.int("block_size", 0);
    if block <= 0 {
        if ps.len() != 1 || ps[0] != xs[ax] {
            bail!(
                "ONNX node '{}': a scale or zero point of shape {ps:?} does not fit axis {ax} of {xs:?}",
                c.node.name
            );
        }
        let dims: Vec<i64> = (0..xs.len()).map(|i| if i == ax { xs[ax] as i64 } else { 1 }).collect();
        return e.reshape(p, &dims);
    }
    let block = block as usize;
    let blocks = xs[ax].div_ceil(block);
    if ps.len() != xs.len() || ps[ax] != blocks || (0..xs.len()).any(|i| i != ax && ps[i] != xs[i]) {
        bail!(
            "ONNX node '{}': a blocked scale or zero point of shape {ps:?} does not fit {xs:?} in blocks of {block}",
            c.node.name
        );
    }
    // Each value repeated `block` times along the axis, the last block cut to what x has.
    let wide = e.expand_dims(p, ax as i64 + 1)?;
    let mut target = ps.clone();
    target.insert(ax + 1, block);
    let repeated = e.broadcast_to(wide, &target)?;
    let mut merged: Vec<i64> = ps.iter().map(|&d| d as i64).collect();
    merged[ax] = (blocks * block) as i64;
    let flat = e.reshape(repeated, &merged)?;
    let begin = vec![0; xs.len()];
    let size: Vec<i64> = xs.iter().map(|&d| d as i64).collect();
    e.slice(flat, &begin, &size)
}

/// round_half_even(`x` · `factor`) + `zero`, saturated to `elem`'s range, as int32.
fn saturate(e: &mut Engine, c: &Ctx, x: TensorId, zero: Option<TensorId>, elem: i32) -> Result<TensorId> {
    let (lo, hi) = range(c, elem)?;
    let mut q = e.unary(UnaryOp::Round, x)?;
    if let Some(z) = zero {
        let zf = e.cast(z, DType::Float32)?;
        q = e.add(q, zf)?;
    }
    let q = e.clip_by_value(q, lo, hi)?;
    e.cast(q, DType::Int32)
}

fn to_float(e: &mut Engine, x: TensorId) -> Result<TensorId> {
    e.cast(x, DType::Float32)
}

/// `x - zero` in float32 (zero absent: x).
fn centred(e: &mut Engine, x: TensorId, zero: Option<TensorId>) -> Result<TensorId> {
    let xf = to_float(e, x)?;
    match zero {
        Some(z) => {
            let zf = to_float(e, z)?;
            e.sub(xf, zf)
        }
        None => Ok(xf),
    }
}

pub(super) fn quantize_linear(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let x = to_float(e, c.t(0)?)?;
    let xs = e.shape(x)?.to_vec();
    let elem = match c.int("output_dtype", 0) as i32 {
        0 => c.elem(2).unwrap_or(UINT8),
        t => t,
    };
    let scale = quant_param(e, c, c.t(1)?, &xs)?;
    let zero = c.opt(2).map(|z| quant_param(e, c, z, &xs)).transpose()?;
    let scaled = e.div(x, scale)?;
    saturate(e, c, scaled, zero, elem)
}

pub(super) fn dequantize_linear(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let x = c.t(0)?;
    let xs = e.shape(x)?.to_vec();
    let scale = quant_param(e, c, c.t(1)?, &xs)?;
    let zero = c.opt(2).map(|z| quant_param(e, c, z, &xs)).transpose()?;
    let d = centred(e, x, zero)?;
    e.mul(d, scale)
}

/// DynamicQuantizeLinear: uint8 over [min(0, min x), max(0, max x)], its scale and zero point
/// worked out in float32 on the host as ONNX's reference does.
pub(super) fn dynamic_quantize_linear(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let x = to_float(e, c.t(0)?)?;
    let extreme = |e: &mut Engine, op| -> Result<f32> {
        let r = e.reduce(op, x, None, false)?;
        Ok(e.read_f64(r)?.first().copied().unwrap_or(0.0) as f32)
    };
    let (max, min) = (extreme(e, ReduceOp::Max)?.max(0.0), extreme(e, ReduceOp::Min)?.min(0.0));
    let scale = if max == min { 1.0 } else { max - min } / 255.0;
    let zero = (0.0 - min / scale).clamp(0.0, 255.0).round_ties_even();
    let scale_t = e.tensor(HostData::F32(vec![scale]), &[])?;
    let zero_t = int_scalar(e, zero as i32)?;
    let scaled = e.div(x, scale_t)?;
    let y = saturate(e, c, scaled, Some(zero_t), UINT8)?;
    Ok(vec![y, scale_t, zero_t])
}

/// MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv: the product of the centred
/// integers; then, for the QLinear ops, rescaled and quantized to y's type.
pub(super) fn integer_product(e: &mut Engine, c: &Ctx, op: &str) -> Result<TensorId> {
    let qlinear = op.starts_with("QLinear");
    // Inputs: QLinear* (x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero[, bias]);
    // *Integer (x, w, x_zero, w_zero).
    let (x, w, xz, wz) =
        if qlinear { (c.t(0)?, c.t(3)?, c.opt(2), c.opt(5)) } else { (c.t(0)?, c.t(1)?, c.opt(2), c.opt(3)) };
    let conv = op.contains("Conv");
    let wz = match wz {
        // A convolution's per-output-channel zero point, [out] against [out, in, k...].
        Some(z) if conv && e.shape(z)?.len() == 1 && e.shape(z)?.iter().product::<usize>() > 1 => {
            let r = e.shape(w)?.len();
            let dims: Vec<i64> = (0..r).map(|i| if i == 0 { -1 } else { 1 }).collect();
            Some(e.reshape(z, &dims)?)
        }
        other => other,
    };
    let b = centred(e, w, wz)?;
    let xz = match xz {
        // MatMulInteger's per-row zero point of a, [M] against [..., M, K]: a column.
        Some(z) if !conv && !qlinear && e.shape(z)?.len() == 1 && e.shape(z)?[0] > 1 => Some(e.expand_dims(z, -1)?),
        other => other,
    };
    let a = centred(e, x, xz)?;
    let bias = if qlinear && conv { c.opt(8).map(|t| to_float(e, t)).transpose()? } else { None };
    let mut y = if conv { conv_of(e, c, a, b, bias)? } else { matmul(e, a, b)? };
    if !qlinear {
        y = e.unary(UnaryOp::Round, y)?;
        return e.cast(y, DType::Int32);
    }
    let (x_scale, w_scale, y_scale) = (c.t(1)?, c.t(4)?, c.t(6)?);
    let mut factor = e.mul(x_scale, w_scale)?;
    if conv && e.shape(factor)?.iter().product::<usize>() > 1 {
        // Per output channel: [out] over NCHW's channel axis.
        let r = e.shape(y)?.len();
        let dims: Vec<i64> = (0..r).map(|i| if i == 1 { -1 } else { 1 }).collect();
        factor = e.reshape(factor, &dims)?;
    }
    let factor = e.div(factor, y_scale)?;
    let y = e.mul(y, factor)?;
    let elem = c.elem(7).or(c.elem(0)).unwrap_or(UINT8);
    saturate(e, c, y, c.opt(7), elem)
}
