//! tfjs-converter's `control_executor.ts`: the frame ops (Enter, Exit, NextIteration), Switch,
//! Merge and LoopCond, and the TensorArray and TensorList ops over tfjs's `TensorArray` and
//! `TensorList` classes (`tensor_array.ts`, `tensor_list.ts`), with their checks and texts.
//! They run only in the control-flow executor (`flow.rs`), which owns the frames: an op here
//! says which frame change it makes ([`FrameOp`]). `If`/`While` (library functions) run there.
//!
//! As in tfjs, a TensorArray or TensorList is known by its handle, a kept scalar that flows
//! through the graph (the ops that clone pass kept tensors on as they are), and the tensors
//! written to one are kept until the execution ends.

use super::scalar;
use super::{values, Ctx};
use std::collections::{HashMap, HashSet};
use tidytensor_core::{bail, DType, Engine, HostData, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "LoopCond",
    "Switch",
    "Merge",
    "Enter",
    "Exit",
    "NextIteration",
    "If",
    "StatelessIf",
    "While",
    "StatelessWhile",
    "TensorArrayV3",
    "TensorArrayWriteV3",
    "TensorArrayReadV3",
    "TensorArrayGatherV3",
    "TensorArrayScatterV3",
    "TensorArrayConcatV3",
    "TensorArraySplitV3",
    "TensorArraySizeV3",
    "TensorArrayCloseV3",
    "TensorListSetItem",
    "TensorListGetItem",
    "TensorListScatter",
    "TensorListScatterV2",
    "TensorListReserve",
    "EmptyTensorList",
    "TensorListGather",
    "TensorListStack",
    "TensorListFromTensor",
    "TensorListConcat",
    "TensorListConcatV2",
    "TensorListPushBack",
    "TensorListPopBack",
    "TensorListSplit",
    "TensorListLength",
    "TensorListResize",
];

/// The frame change an op makes (tfjs's `context.enterFrame` / `exitFrame` / `nextIteration`).
pub(crate) enum FrameOp {
    Stay,
    Enter(String),
    Exit,
    Next,
}

/// The TensorArrays and TensorLists of one execution (tfjs's `tensorArrayMap` and
/// `tensorListMap`), by handle, and the tensors the execution keeps.
#[derive(Default)]
pub(crate) struct Resources {
    pub arrays: HashMap<TensorId, TensorArray>,
    pub lists: HashMap<TensorId, TensorList>,
    /// Tensors this execution marked kept (handles, written elements): disposed at its end.
    pub kept: HashSet<TensorId>,
    /// The feeds and weights: never kept, never disposed.
    pub frozen: HashSet<TensorId>,
    /// The ops the caller runs (tf.registerOp's, in JavaScript): a node of one that the
    /// executor does not know asks the caller for its outputs ([`crate::Execution::provide`]).
    pub custom_ops: HashSet<String>,
}

impl Resources {
    /// tfjs's `keep(tensor)`, except for the caller's tensors (feeds, weights), which stay as
    /// they are.
    fn keep(&mut self, e: &mut Engine, id: TensorId) {
        if self.frozen.contains(&id) || e.tensor_origin(id).is_some_and(|o| o.kept) {
            return;
        }
        e.keep(id);
        self.kept.insert(id);
    }

    /// A new handle: tfjs's `idTensor = scalar(0)`, kept.
    fn handle(&mut self, e: &mut Engine) -> Result<TensorId> {
        let id = scalar(e, 0.0, DType::Float32)?;
        self.keep(e, id);
        Ok(id)
    }

    /// Disposes a tensor this execution holds (never a feed or weight).
    pub fn release(&mut self, e: &mut Engine, id: TensorId) {
        if !self.frozen.contains(&id) {
            self.kept.remove(&id);
            e.dispose(id);
        }
    }

    /// Every tensor the arrays, lists and keeps hold (tfjs's `context.dispose`).
    pub fn held(&self) -> Vec<TensorId> {
        let mut all: Vec<TensorId> = self.kept.iter().copied().collect();
        for a in self.arrays.values() {
            all.push(a.handle);
            all.extend(a.tensors.iter().flatten().filter_map(|t| t.tensor));
        }
        for l in self.lists.values() {
            all.push(l.handle);
            all.extend(l.tensors.iter().flatten());
        }
        all
    }
}

/// An element shape of a TensorList: a number (any shape: tfjs's unknown rank) or dimensions
/// (-1 unknown).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Shape {
    Any(f64),
    Dims(Vec<i64>),
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shape::Any(x) => write!(f, "{}", num(*x)),
            Shape::Dims(d) => write!(f, "{}", dims_text(d)),
        }
    }
}

fn num(x: f64) -> String {
    tidytensor_core::js::number(x)
}

fn dims_text(d: &[i64]) -> String {
    d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

fn dims_of(e: &Engine, id: TensorId) -> Result<Vec<i64>> {
    Ok(e.shape(id)?.iter().map(|&d| d as i64).collect())
}

/// tfjs's `assertShapesMatchAllowUndefinedSize`: -1 matches any size; a number any shape.
fn assert_shapes(a: &Shape, b: &Shape, prefix: &str) -> Result<()> {
    let (Shape::Dims(x), Shape::Dims(y)) = (a, b) else { return Ok(()) };
    if x.len() != y.len() || x.iter().zip(y).any(|(&p, &q)| p >= 0 && q >= 0 && p != q) {
        bail!("{prefix} Shapes {a} and {b} must match");
    }
    Ok(())
}

/// tfjs's `mergeElementShape`.
fn merge_shapes(a: &Shape, b: &Shape) -> Result<Shape> {
    let (x, y) = match (a, b) {
        (Shape::Any(_), _) => return Ok(b.clone()),
        (_, Shape::Any(_)) => return Ok(a.clone()),
        (Shape::Dims(x), Shape::Dims(y)) => (x, y),
    };
    if x.len() != y.len() {
        bail!("Incompatible ranks during merge: {a} vs. {b}");
    }
    let mut out = Vec::with_capacity(x.len());
    for (&p, &q) in x.iter().zip(y) {
        if p >= 0 && q >= 0 && p != q {
            bail!("Incompatible shape during merge: {a} vs. {b}");
        }
        out.push(if p >= 0 { p } else { q });
    }
    Ok(Shape::Dims(out))
}

fn fully_defined(s: &Shape) -> bool {
    matches!(s, Shape::Dims(d) if d.iter().all(|&x| x >= 0))
}

/// tfjs's `inferElementShape`: the list's and the op's element shapes merged, completed from
/// the list's tensors.
fn infer_shape(e: &Engine, list: &Shape, tensors: &[Option<TensorId>], want: &Shape) -> Result<Vec<i64>> {
    let mut partial = merge_shapes(list, want)?;
    if !fully_defined(&partial) {
        if tensors.is_empty() {
            bail!("Tried to calculate elements of an empty list with non-fully-defined elementShape: {partial}");
        }
        for t in tensors.iter().flatten() {
            partial = merge_shapes(&Shape::Dims(dims_of(e, *t)?), &partial)?;
        }
    }
    match partial {
        Shape::Dims(d) if d.iter().all(|&x| x >= 0) => Ok(d),
        other => bail!("Non-fully-defined elementShape: {other}"),
    }
}

/// tfjs's `tensor([], [0, ...shape])`: an empty float32 tensor.
fn empty(e: &mut Engine, shape: &[i64]) -> Result<TensorId> {
    let mut dims = vec![0usize];
    for &d in shape {
        if d < 0 {
            bail!("Tensor must have a shape comprised of positive integers but got shape [0,{}].", dims_text(shape));
        }
        dims.push(d as usize);
    }
    e.tensor(HostData::F32(Vec::new()), &dims)
}

fn dtype_name(d: Option<DType>) -> &'static str {
    d.map_or("undefined", DType::name)
}

/// One element of a TensorArray, with tfjs's read/written/cleared state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Element {
    tensor: Option<TensorId>,
    read: bool,
    written: bool,
    cleared: bool,
}

/// tfjs's `TensorArray`: elements written once, read (and cleared) by index.
pub(crate) struct TensorArray {
    pub handle: TensorId,
    name: String,
    dtype: Option<DType>,
    max_size: f64,
    element_shape: Option<Vec<i64>>,
    dynamic_size: bool,
    clear_after_read: bool,
    /// A JavaScript array: writes past the end leave holes.
    pub tensors: Vec<Option<Element>>,
    closed: bool,
}

impl TensorArray {
    fn shape(&self) -> Shape {
        // An undefined element shape matches anything (tfjs would fail on its length).
        self.element_shape.clone().map_or(Shape::Any(-1.0), Shape::Dims)
    }

    fn write(&mut self, r: &mut Resources, e: &mut Engine, index: f64, t: TensorId) -> Result<()> {
        let name = &self.name;
        if self.closed {
            bail!("TensorArray {name} has already been closed.");
        }
        if index < 0.0 || !self.dynamic_size && index >= self.max_size {
            bail!(
                "Tried to write to index {}, but array is not resizeable and size is: {}",
                num(index),
                num(self.max_size)
            );
        }
        let i = index as usize;
        let dtype = e.dtype(t)?;
        if Some(dtype) != self.dtype {
            bail!(
                "TensorArray {name}: Could not write to TensorArray index {},\n          because the value dtype is {}, but TensorArray dtype is {}.",
                num(index),
                dtype.name(),
                dtype_name(self.dtype)
            );
        }
        let shape = dims_of(e, t)?;
        if self.tensors.is_empty() && self.element_shape.as_ref().is_none_or(Vec::is_empty) {
            self.element_shape = Some(shape.clone());
        }
        let prefix = format!("TensorArray {name}: Could not write to TensorArray index {}.", num(index));
        assert_shapes(&self.shape(), &Shape::Dims(shape), &prefix)?;
        let old = self.tensors.get(i).cloned().flatten().unwrap_or_default();
        if old.read {
            bail!(
                "TensorArray {name}: Could not write to TensorArray index {}, because it has already been read.",
                num(index)
            );
        }
        if old.written {
            bail!(
                "TensorArray {name}: Could not write to TensorArray index {}, because it has already been written.",
                num(index)
            );
        }
        r.keep(e, t);
        if self.tensors.len() <= i {
            self.tensors.resize(i + 1, None);
        }
        self.tensors[i] = Some(Element { tensor: Some(t), written: true, ..old });
        Ok(())
    }

    fn read(&mut self, index: f64) -> Result<TensorId> {
        let name = &self.name;
        if self.closed {
            bail!("TensorArray {name} has already been closed.");
        }
        if index < 0.0 || index >= self.tensors.len() as f64 {
            bail!("Tried to read from index {}, but array size is: {}", num(index), self.tensors.len());
        }
        let clear = self.clear_after_read;
        let Some(el) = self.tensors[index as usize].as_mut() else {
            bail!("TensorArray {name}: Could not read index {}: it was never written.", num(index));
        };
        if el.cleared {
            bail!(
                "TensorArray {name}: Could not read index {} twice because it was cleared after a previous read (perhaps try setting clear_after_read = false?).",
                num(index)
            );
        }
        if clear {
            el.cleared = true;
        }
        el.read = true;
        match el.tensor {
            Some(t) => Ok(t),
            None => bail!("TensorArray {name}: Could not read index {}: it was never written.", num(index)),
        }
    }

    fn check_dtype(&self, dtype: Option<DType>, what: &str) -> Result<()> {
        if let Some(d) = dtype {
            if Some(d) != self.dtype {
                bail!("TensorArray dtype is {} but {what} requested dtype {}", dtype_name(self.dtype), d.name());
            }
        }
        Ok(())
    }

    fn check_value(&self, e: &Engine, t: TensorId) -> Result<()> {
        let d = e.dtype(t)?;
        if Some(d) != self.dtype {
            bail!("TensorArray dtype is {} but tensor has dtype {}", dtype_name(self.dtype), d.name());
        }
        Ok(())
    }

    fn write_many(&mut self, r: &mut Resources, e: &mut Engine, indices: &[f64], ts: &[TensorId]) -> Result<()> {
        if indices.len() != ts.len() {
            bail!(
                "TensorArray {}: could not write multiple tensors,because the index size: {} is not the same as tensors size: {}.",
                self.name,
                indices.len(),
                ts.len()
            );
        }
        for (&i, &t) in indices.iter().zip(ts) {
            self.write(r, e, i, t)?;
        }
        Ok(())
    }

    fn empty_shape(&self) -> Result<Vec<i64>> {
        match &self.element_shape {
            Some(s) => Ok(s.clone()),
            None => bail!("TensorArray {}: the element shape is unknown", self.name),
        }
    }
}

/// tfjs's `TensorList`: a list of tensors of one dtype and element shape.
pub(crate) struct TensorList {
    pub handle: TensorId,
    /// A JavaScript array: `setItem` past the end leaves holes.
    pub tensors: Vec<Option<TensorId>>,
    element_shape: Shape,
    dtype: Option<DType>,
    max: f64,
}

impl TensorList {
    /// tfjs's constructor: each tensor of the dtype and element shape, kept.
    fn new(
        r: &mut Resources,
        e: &mut Engine,
        tensors: Vec<TensorId>,
        element_shape: Shape,
        dtype: Option<DType>,
        max: f64,
    ) -> Result<TensorList> {
        for &t in &tensors {
            let d = e.dtype(t)?;
            if Some(d) != dtype {
                bail!("Invalid data types; op elements {}, but list elements {}", dtype_name(dtype), d.name());
            }
            assert_shapes(&element_shape, &Shape::Dims(dims_of(e, t)?), "TensorList shape mismatch: ")?;
            r.keep(e, t);
        }
        let handle = r.handle(e)?;
        Ok(TensorList { handle, tensors: tensors.into_iter().map(Some).collect(), element_shape, dtype, max })
    }

    fn check_op_dtype(&self, dtype: Option<DType>) -> Result<()> {
        if dtype != self.dtype {
            bail!(
                "Invalid data types; op elements {}, but list elements {}",
                dtype_name(dtype),
                dtype_name(self.dtype)
            );
        }
        Ok(())
    }

    fn check_value_dtype(&self, e: &Engine, t: TensorId) -> Result<()> {
        let d = e.dtype(t)?;
        if Some(d) != self.dtype {
            bail!("Invalid data types; op elements {}, but list elements {}", d.name(), dtype_name(self.dtype));
        }
        Ok(())
    }

    fn set_item(&mut self, r: &mut Resources, e: &mut Engine, index: f64, t: TensorId) -> Result<()> {
        self.check_value_dtype(e, t)?;
        if index < 0.0 || self.max != -1.0 && index >= self.max {
            bail!("Trying to set element {} in a list with max {} elements.", num(index), num(self.max));
        }
        assert_shapes(&self.element_shape, &Shape::Dims(dims_of(e, t)?), "TensorList shape mismatch: ")?;
        r.keep(e, t);
        let i = index as usize;
        if self.tensors.len() <= i {
            self.tensors.resize(i + 1, None);
        }
        // The value replaced stays kept until the execution ends (tfjs unkeeps it).
        self.tensors[i] = Some(t);
        Ok(())
    }

    /// The list's tensors, each reshaped to `shape` (a hole fails).
    fn reshaped(&self, e: &mut Engine, which: &[usize], shape: &[i64]) -> Result<Vec<TensorId>> {
        which
            .iter()
            .map(|&i| match self.tensors.get(i).copied().flatten() {
                Some(t) => e.reshape(t, shape),
                None => bail!("element at index {i} is null."),
            })
            .collect()
    }
}

/// A `shape` param: the values of a tensor, a number when it is a scalar (tfjs's
/// `toNestedArray`).
fn shape_param(e: &Engine, c: &Ctx, i: isize) -> Result<Shape> {
    let t = c.t(i)?;
    let v = values(e, t)?;
    if e.shape(t)?.is_empty() {
        Ok(Shape::Any(v.first().copied().unwrap_or(f64::NAN)))
    } else {
        Ok(Shape::Dims(v.into_iter().map(|x| x as i64).collect()))
    }
}

/// JavaScript truthiness of a tensor's first value (`(await pred.data())[0]`).
fn truthy(e: &Engine, t: TensorId) -> Result<bool> {
    Ok(values(e, t)?.first().is_some_and(|&v| v != 0.0 && !v.is_nan()))
}

/// tfjs's `Math.max(...indices)`.
fn max_of(v: &[f64]) -> f64 {
    v.iter().fold(f64::NEG_INFINITY, |m, &x| if x.is_nan() || m.is_nan() { f64::NAN } else { m.max(x) })
}

/// The length check of tfjs's TensorArray and TensorList `split`: the cumulative lengths.
fn split_lengths(e: &Engine, t: TensorId, lengths: &[f64]) -> Result<(Vec<f64>, f64)> {
    let mut total = 0.0;
    let cumulative: Vec<f64> = lengths
        .iter()
        .map(|&l| {
            total += l;
            total
        })
        .collect();
    let shape = e.shape(t)?;
    if shape.first().map(|&d| d as f64) != Some(total) {
        bail!(
            "Expected sum of lengths to be equal to\n          tensor.shape[0], but sum of lengths is\n        {}, and tensor's shape is: {}",
            num(total),
            shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
        );
    }
    Ok((cumulative, total))
}

/// The rows `[cumulative[i-1], cumulative[i])` of `t`, each reshaped to `shape`.
fn split_rows(
    e: &mut Engine,
    t: TensorId,
    lengths: &[f64],
    cumulative: &[f64],
    total: f64,
    shape: &[i64],
) -> Result<Vec<TensorId>> {
    let size: usize = e.shape(t)?.iter().product();
    let per_row = if total == 0.0 { 0 } else { (size as f64 / total) as i64 };
    let rows = e.reshape(t, &[1, total as i64, per_row])?;
    let mut out = Vec::with_capacity(lengths.len());
    for (i, &len) in lengths.iter().enumerate() {
        let prev = if i == 0 { 0.0 } else { cumulative[i - 1] };
        let part = e.slice(rows, &[0, prev as i64, 0], &[1, len as i64, per_row])?;
        out.push(e.reshape(part, shape)?);
    }
    Ok(out)
}

fn array<'a>(r: &'a mut Resources, c: &Ctx) -> Result<&'a mut TensorArray> {
    r.arrays.get_mut(&c.t(0)?).ok_or_else(not_array)
}

fn take_list(r: &mut Resources, c: &Ctx) -> Result<TensorList> {
    r.lists.remove(&c.t(0)?).ok_or_else(not_list)
}

/// A scatter's check (TensorArray and TensorList alike, tfjs's text): one index per row of `t`.
fn scatter_rows(e: &Engine, t: TensorId, indices: &[f64]) -> Result<()> {
    let rows = e.shape(t)?.first().copied();
    if Some(indices.len()) != rows {
        bail!(
            "Expected len(indices) == tensor.shape[0], but saw: {} vs. {}",
            indices.len(),
            rows.map_or("undefined".to_string(), |d| d.to_string())
        );
    }
    Ok(())
}

/// Runs a control op. `merged` is, for Merge, the first of its inputs (data or control) that
/// has a value in the current frame. Outputs may be dead (`None`: Switch's untaken branch).
pub(crate) fn run(
    e: &mut Engine,
    c: &Ctx,
    merged: Option<TensorId>,
    r: &mut Resources,
) -> Result<(Vec<Option<TensorId>>, FrameOp)> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    let one = |t: TensorId| Ok((vec![Some(t)], FrameOp::Stay));
    match op {
        "LoopCond" => one(c.clone_of(e, c.t(0)?)?),
        "Switch" => {
            let data = c.clone_of(e, c.t(0)?)?;
            // Outputs :0 => false, :1 => true.
            if truthy(e, c.t(1)?)? {
                Ok((vec![None, Some(data)], FrameOp::Stay))
            } else {
                Ok((vec![Some(data), None], FrameOp::Stay))
            }
        }
        "Merge" => match merged {
            Some(t) => one(c.clone_of(e, t)?),
            None => Ok((vec![None], FrameOp::Stay)),
        },
        "Enter" => {
            let frame = a.string("frame_name").unwrap_or_else(|| "undefined".to_string());
            Ok((vec![Some(c.clone_of(e, c.t(0)?)?)], FrameOp::Enter(frame)))
        }
        "Exit" => Ok((vec![Some(c.clone_of(e, c.t(0)?)?)], FrameOp::Exit)),
        "NextIteration" => Ok((vec![Some(c.clone_of(e, c.t(0)?)?)], FrameOp::Next)),
        "TensorArrayV3" => {
            let size = c.num(e, 0)?;
            let handle = r.handle(e)?;
            let ta = TensorArray {
                handle,
                name: a.string("tensor_array_name").unwrap_or_else(|| "undefined".to_string()),
                dtype: a.dtype("dtype").flatten(),
                max_size: size,
                element_shape: a.shape("element_shape").flatten(),
                dynamic_size: a.bool("dynamic_size", false),
                clear_after_read: a.bool("clear_after_read", false),
                tensors: Vec::new(),
                closed: false,
            };
            r.arrays.insert(handle, ta);
            let flow = scalar(e, 1.0, DType::Float32)?;
            Ok((vec![Some(handle), Some(flow)], FrameOp::Stay))
        }
        "TensorArrayWriteV3" => {
            let (index, t) = (c.num(e, 1)?, c.t(2)?);
            let mut ta = r.arrays.remove(&c.t(0)?).ok_or_else(not_array)?;
            let done = ta.write(r, e, index, t);
            let handle = ta.handle;
            r.arrays.insert(handle, ta);
            done?;
            one(handle)
        }
        "TensorArrayReadV3" => {
            let index = c.num(e, 1)?;
            one(array(r, c)?.read(index)?)
        }
        "TensorArrayGatherV3" => {
            let indices = c.nums(e, 1)?;
            let dtype = a.dtype("dtype").flatten();
            let ta = array(r, c)?;
            ta.check_dtype(dtype, "gather")?;
            let n = indices.len().min(ta.tensors.len());
            if n == 0 {
                let shape = ta.empty_shape()?;
                return one(empty(e, &shape)?);
            }
            let ts = indices[..n].iter().map(|&i| ta.read(i)).collect::<Result<Vec<_>>>()?;
            assert_shapes(&ta.shape(), &Shape::Dims(dims_of(e, ts[0])?), "TensorArray shape mismatch: ")?;
            one(e.stack(&ts, 0)?)
        }
        "TensorArrayScatterV3" => {
            let (indices, t) = (c.nums(e, 1)?, c.t(2)?);
            let mut ta = r.arrays.remove(&c.t(0)?).ok_or_else(not_array)?;
            let done = (|| {
                ta.check_value(e, t)?;
                scatter_rows(e, t, &indices)?;
                let max = max_of(&indices);
                if !ta.dynamic_size && max >= ta.max_size {
                    bail!("Max index must be < array size ({}  vs. {})", num(max), num(ta.max_size));
                }
                let parts = e.unstack(t, 0.0)?;
                ta.write_many(r, e, &indices, &parts)
            })();
            let handle = ta.handle;
            r.arrays.insert(handle, ta);
            done?;
            one(handle)
        }
        "TensorArrayConcatV3" => {
            let dtype = a.dtype("dtype").flatten();
            let ta = array(r, c)?;
            ta.check_dtype(dtype, "concat")?;
            if ta.tensors.is_empty() {
                let shape = ta.empty_shape()?;
                return one(empty(e, &shape)?);
            }
            let ts = (0..ta.tensors.len()).map(|i| ta.read(i as f64)).collect::<Result<Vec<_>>>()?;
            let first = dims_of(e, ts[0])?;
            let prefix = format!(
                "TensorArray shape mismatch: tensor array shape ({}) vs first tensor shape ({})",
                ta.shape(),
                dims_text(&first)
            );
            assert_shapes(&ta.shape(), &Shape::Dims(first), &prefix)?;
            one(e.concat(&ts, 0)?)
        }
        "TensorArraySplitV3" => {
            let (t, lengths) = (c.t(1)?, c.nums(e, 2)?);
            let mut ta = r.arrays.remove(&c.t(0)?).ok_or_else(not_array)?;
            let done = (|| {
                ta.check_value(e, t)?;
                let (cumulative, total) = split_lengths(e, t, &lengths)?;
                if !ta.dynamic_size && lengths.len() as f64 != ta.max_size {
                    bail!(
                        "TensorArray's size is not equal to the size of lengths ({} vs. {}), and the TensorArray is not marked as dynamically resizeable",
                        num(ta.max_size),
                        lengths.len()
                    );
                }
                let shape = ta.empty_shape()?;
                let parts = split_rows(e, t, &lengths, &cumulative, total, &shape)?;
                let indices: Vec<f64> = (0..lengths.len()).map(|i| i as f64).collect();
                ta.write_many(r, e, &indices, &parts)
            })();
            let handle = ta.handle;
            r.arrays.insert(handle, ta);
            done?;
            one(handle)
        }
        "TensorArraySizeV3" => {
            let n = array(r, c)?.tensors.len();
            one(scalar(e, n as f64, DType::Int32)?)
        }
        "TensorArrayCloseV3" => {
            // clearAndClose: the elements go; the handle stays until the execution ends (it
            // is this op's output).
            let ta = array(r, c)?;
            let gone: Vec<TensorId> = ta.tensors.drain(..).flatten().filter_map(|el| el.tensor).collect();
            ta.closed = true;
            let handle = ta.handle;
            for t in gone {
                r.release(e, t);
            }
            one(handle)
        }
        "TensorListReserve" | "EmptyTensorList" => {
            let shape = shape_param(e, c, 0)?;
            let dtype = a.dtype("element_dtype").flatten();
            let n = c.num(e, 1)?;
            let max = if op == "TensorListReserve" { -1.0 } else { n };
            let list = TensorList::new(r, e, Vec::new(), shape, dtype, max)?;
            let handle = list.handle;
            r.lists.insert(handle, list);
            one(handle)
        }
        "TensorListFromTensor" => {
            let t = c.t(0)?;
            let shape = shape_param(e, c, 1)?;
            let dtype = a.dtype("element_dtype").flatten();
            let dims = dims_of(e, t)?;
            if dims.is_empty() {
                bail!("Tensor must be at least a vector, but saw shape: ");
            }
            let d = e.dtype(t)?;
            if Some(d) != dtype {
                bail!("Invalid data types; op elements {}, but list elements {}", d.name(), dtype_name(dtype));
            }
            assert_shapes(&Shape::Dims(dims[1..].to_vec()), &shape, "TensorList shape mismatch: ")?;
            let parts = e.unstack(t, 0.0)?;
            let list = TensorList::new(r, e, parts, shape, Some(d), -1.0)?;
            let handle = list.handle;
            r.lists.insert(handle, list);
            one(handle)
        }
        "TensorListScatter" | "TensorListScatterV2" => {
            let t = c.t(0)?;
            let indices = c.nums(e, 1)?;
            let shape = shape_param(e, c, 2)?;
            let n = if op == "TensorListScatterV2" { Some(c.num(e, 3)?) } else { None };
            scatter_rows(e, t, &indices)?;
            let max = max_of(&indices);
            if let Some(n) = n.filter(|&n| n != -1.0) {
                if max >= n {
                    bail!("Max index must be < array size ({}  vs. {})", num(max), num(n));
                }
            }
            let mut list = TensorList::new(r, e, Vec::new(), shape, Some(e.dtype(t)?), n.unwrap_or(-1.0))?;
            let handle = list.handle;
            let parts = e.unstack(t, 0.0);
            let done =
                parts.and_then(|parts| indices.iter().zip(&parts).try_for_each(|(&i, &p)| list.set_item(r, e, i, p)));
            r.lists.insert(handle, list);
            done?;
            one(handle)
        }
        "TensorListSplit" => {
            let t = c.t(0)?;
            let shape = shape_param(e, c, 1)?;
            let lengths = c.nums(e, 2)?;
            let (cumulative, total) = split_lengths(e, t, &lengths)?;
            let dims = dims_of(e, t)?;
            let out = match merge_shapes(&Shape::Dims(dims[1..].to_vec()), &shape)? {
                Shape::Dims(d) => d,
                Shape::Any(_) => dims[1..].to_vec(),
            };
            let parts = split_rows(e, t, &lengths, &cumulative, total, &out)?;
            let mut list = TensorList::new(r, e, Vec::new(), shape, Some(e.dtype(t)?), lengths.len() as f64)?;
            let handle = list.handle;
            let done = parts.iter().enumerate().try_for_each(|(i, &p)| list.set_item(r, e, i as f64, p));
            r.lists.insert(handle, list);
            done?;
            one(handle)
        }
        "TensorListSetItem" => {
            let (index, t) = (c.num(e, 1)?, c.t(2)?);
            let mut list = take_list(r, c)?;
            let done = list.set_item(r, e, index, t);
            let handle = list.handle;
            r.lists.insert(handle, list);
            done?;
            one(handle)
        }
        "TensorListGetItem" => {
            let index = c.num(e, 1)?;
            let shape = shape_param(e, c, 2)?;
            let dtype = a.dtype("element_dtype").flatten();
            let list = r.lists.get(&c.t(0)?).ok_or_else(not_list)?;
            list.check_op_dtype(dtype)?;
            if index < 0.0 || index > list.tensors.len() as f64 {
                bail!("Trying to access element {} in a list with {} elements.", num(index), list.tensors.len());
            }
            let Some(t) = list.tensors.get(index as usize).copied().flatten() else {
                bail!("element at index {} is null.", num(index));
            };
            assert_shapes(&Shape::Dims(dims_of(e, t)?), &shape, "TensorList shape mismatch: ")?;
            let out = infer_shape(e, &list.element_shape, &list.tensors, &shape)?;
            one(e.reshape(t, &out)?)
        }
        "TensorListStack" => {
            let shape = shape_param(e, c, 1)?;
            let dtype = a.dtype("element_dtype").flatten();
            let list = r.lists.get(&c.t(0)?).ok_or_else(not_list)?;
            list.check_op_dtype(dtype)?;
            assert_shapes(&shape, &list.element_shape, "TensorList shape mismatch: ")?;
            let out = infer_shape(e, &list.element_shape, &list.tensors, &shape)?;
            if list.tensors.is_empty() {
                bail!("Pass at least one tensor to tf.stack");
            }
            let all: Vec<usize> = (0..list.tensors.len()).collect();
            let parts = list.reshaped(e, &all, &out)?;
            one(e.stack(&parts, 0)?)
        }
        "TensorListGather" => {
            let indices = c.nums(e, 1)?;
            let shape = shape_param(e, c, 2)?;
            let dtype = a.dtype("element_dtype").flatten();
            let list = r.lists.get(&c.t(0)?).ok_or_else(not_list)?;
            list.check_op_dtype(dtype)?;
            assert_shapes(&list.element_shape, &shape, "TensorList shape mismatch: ")?;
            let n = indices.len().min(list.tensors.len());
            let out = infer_shape(e, &list.element_shape, &list.tensors, &shape)?;
            if n == 0 {
                return one(empty(e, &out)?);
            }
            let which: Vec<usize> = indices[..n].iter().map(|&i| i as usize).collect();
            let parts = list.reshaped(e, &which, &out)?;
            one(e.stack(&parts, 0)?)
        }
        "TensorListConcat" | "TensorListConcatV2" => {
            // tfjs reads a `dtype` param these ops do not have: no dtype check.
            let shape = a.shape("element_shape").flatten().map_or(Shape::Any(-1.0), Shape::Dims);
            let list = r.lists.get(&c.t(0)?).ok_or_else(not_list)?;
            assert_shapes(&list.element_shape, &shape, "TensorList shape mismatch: ")?;
            let out = infer_shape(e, &list.element_shape, &list.tensors, &shape)?;
            if list.tensors.is_empty() {
                return one(empty(e, &out)?);
            }
            let all: Vec<usize> = (0..list.tensors.len()).collect();
            let parts = list.reshaped(e, &all, &out)?;
            one(e.concat(&parts, 0)?)
        }
        "TensorListPushBack" => {
            let t = c.t(1)?;
            let mut list = take_list(r, c)?;
            let done = (|| {
                list.check_value_dtype(e, t)?;
                assert_shapes(&Shape::Dims(dims_of(e, t)?), &list.element_shape, "TensorList shape mismatch: ")?;
                if list.max == list.tensors.len() as f64 {
                    bail!("Trying to push element into a full list.");
                }
                r.keep(e, t);
                list.tensors.push(Some(t));
                Ok(())
            })();
            let handle = list.handle;
            r.lists.insert(handle, list);
            done?;
            one(handle)
        }
        "TensorListPopBack" => {
            let shape = shape_param(e, c, 1)?;
            let dtype = a.dtype("element_dtype").flatten();
            let list = r.lists.get_mut(&c.t(0)?).ok_or_else(not_list)?;
            list.check_op_dtype(dtype)?;
            if list.tensors.is_empty() {
                bail!("Trying to pop from an empty list.");
            }
            let out = infer_shape(e, &list.element_shape, &list.tensors, &shape)?;
            // The popped tensor stays kept until the execution ends (tfjs unkeeps it).
            let Some(t) = list.tensors.pop().flatten() else {
                bail!("element at index {} is null.", list.tensors.len())
            };
            assert_shapes(&Shape::Dims(dims_of(e, t)?), &shape, "TensorList shape mismatch: ")?;
            one(e.reshape(t, &out)?)
        }
        "TensorListLength" => {
            let n = r.lists.get(&c.t(0)?).ok_or_else(not_list)?.tensors.len();
            one(scalar(e, n as f64, DType::Int32)?)
        }
        "TensorListResize" => {
            let size = c.num(e, 1)?;
            let list = r.lists.get(&c.t(0)?).ok_or_else(not_list)?;
            if size < 0.0 {
                bail!("TensorListResize expects size to be non-negative. Got: {}", num(size));
            }
            if list.max != -1.0 && size > list.max {
                bail!("TensorListResize input size {} is greater maxNumElement {}.", num(size), num(list.max));
            }
            let n = size as usize;
            let mut tensors = list.tensors.clone();
            tensors.resize(n, None);
            let (shape, dtype, max) = (list.element_shape.clone(), list.dtype, list.max);
            let handle = r.handle(e)?;
            r.lists.insert(handle, TensorList { handle, tensors, element_shape: shape, dtype, max });
            one(handle)
        }
        _ => bail!("Node type {op} is not implemented"),
    }
}

fn not_array() -> tidytensor_core::Error {
    tidytensor_core::Error::new("the input is not a TensorArray handle")
}

fn not_list() -> tidytensor_core::Error {
    tidytensor_core::Error::new("the input is not a TensorList handle")
}
