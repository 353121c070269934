//! String tensors. Their values live in host memory whatever the backend (as in tfjs's GPU
//! backends), as bytes (UTF-8 from JavaScript strings, or any bytes from `Uint8Array`s).
//!
//! No backend kernel knows strings. The layout and comparison ops run on *codes* instead: each
//! distinct value gets an int32, its rank among the distinct values in JavaScript's string
//! order, so the usual kernels slice, concat, gather, transpose and compare the codes with
//! all their checks and broadcasting, and the layout results are turned back into strings.

use crate::{bail, BinaryOp, BinaryRule, DType, Engine, HostData, Result, Storage, TensorId};
use rustc_hash::FxHashMap;
use std::any::Any;

/// The values of one string tensor, row-major.
pub struct Strings(pub Vec<Vec<u8>>);

impl Storage for Strings {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The values of a string tensor's storage (`None` for any other storage).
pub(crate) fn strings_in(storage: &dyn Storage) -> Option<&[Vec<u8>]> {
    storage.as_any().downcast_ref::<Strings>().map(|s| s.0.as_slice())
}

/// JavaScript's order of two strings (UTF-16 code units) given as bytes; bytes that are not
/// UTF-8 compare as U+FFFD, as `TextDecoder` reads them.
fn js_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    String::from_utf8_lossy(a).encode_utf16().cmp(String::from_utf8_lossy(b).encode_utf16())
}

impl Engine {
    /// A string tensor of `values` (row-major) in `shape`.
    pub fn strings(&mut self, values: Vec<Vec<u8>>, shape: &[usize]) -> Result<TensorId> {
        crate::engine::check_values(values.len(), shape)?;
        self.output(Box::new(Strings(values)), shape.to_vec(), DType::String)
    }

    /// The values of a string tensor.
    pub fn read_strings(&self, id: TensorId) -> Result<Vec<Vec<u8>>> {
        let t = self.info(id)?;
        match strings_in(&*t.data.storage) {
            Some(v) if t.dtype == DType::String => Ok(v.to_vec()),
            _ => bail!("read_strings: the tensor is {}, not string", t.dtype.name()),
        }
    }

    /// Runs `op` on int32 codes of the string tensors among `xs` (other inputs are passed as
    /// they are). With `decode`, `op` returns codes, which become strings again; otherwise
    /// its result is returned as it is (comparisons). Recorded as one `kernel` call.
    pub(crate) fn via_codes(
        &mut self,
        kernel: &'static str,
        xs: &[TensorId],
        decode: bool,
        op: impl FnOnce(&mut Engine, &[TensorId]) -> Result<TensorId>,
    ) -> Result<TensorId> {
        self.run_kernel_any(kernel, xs, |e, _, ins| {
            let mut distinct: Vec<&[u8]> =
                ins.iter().filter_map(|x| strings_in(&*x.data.storage)).flatten().map(Vec::as_slice).collect();
            distinct.sort_unstable_by(|a, b| js_order(a, b));
            distinct.dedup();
            let code: FxHashMap<&[u8], i32> = distinct.iter().enumerate().map(|(i, &s)| (s, i as i32)).collect();
            let mut args = Vec::with_capacity(xs.len());
            for (x, &id) in ins.iter().zip(xs) {
                match strings_in(&*x.data.storage) {
                    Some(values) => {
                        let codes = values.iter().map(|v| code[v.as_slice()]).collect();
                        args.push(e.tensor(HostData::I32(codes), &x.shape)?);
                    }
                    None => args.push(id),
                }
            }
            let out = op(e, &args)?;
            if !decode {
                return Ok(out);
            }
            let HostData::I32(codes) = e.read(out)? else { bail!("{kernel}: string codes must stay int32") };
            let shape = e.shape(out)?.to_vec();
            let values = codes.iter().map(|&c| distinct[c as usize].to_vec()).collect();
            e.strings(values, &shape)
        })
    }

    /// `tf.equal`, `notEqual`, `less` ... of two string tensors (JavaScript's string order).
    pub(crate) fn compare_strings(&mut self, op: BinaryOp, a: TensorId, b: TensorId) -> Result<TensorId> {
        let (da, db) = (self.dtype(a)?, self.dtype(b)?);
        if da != db {
            bail!("Can not upcast {} with {}", da.name(), db.name());
        }
        if op.rule() != BinaryRule::Compare {
            let (an, _) = op.arg_names();
            bail!("Argument '{an}' passed to '{}' must be numeric tensor, but got string tensor", op.js_name());
        }
        self.via_codes(op.kernel_name(), &[a, b], false, |e, c| e.binary(op, c[0], c[1]))
    }
}
