//! tfjs-converter's `hash_table_executor.ts` and its `HashTable` / `ResourceManager`: lookup
//! tables of a model (a text model's vocabulary), created by `HashTable` nodes (by node name,
//! shared with the model initializer's graph), filled by `LookupTableImport` /
//! `InitializeTable`, read by `LookupTableFind` / `LookupTableSize`. A table is known by its
//! handle, a kept scalar tensor, as in tfjs; the handle and the stored values live until the
//! model is disposed. tfjs runs these ops only in `executeAsync`; so does [`crate::Graph`].

use super::{not_here, values, Ctx};
use std::collections::HashMap;
use tidytensor_core::{bail, DType, Engine, HostData, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "HashTable",
    "HashTableV2",
    "InitializeTable",
    "InitializeTableV2",
    "LookupTableImport",
    "LookupTableImportV2",
    "LookupTableFind",
    "LookupTableFindV2",
    "LookupTableSize",
    "LookupTableSizeV2",
];

/// A key as a JavaScript `Map` compares the values of `keys.data()`: numbers by value (-0 is 0,
/// NaN is NaN), strings by content.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Number(u64),
    Bytes(Vec<u8>),
}

fn number_key(v: f64) -> Key {
    let v = if v == 0.0 {
        0.0
    } else if v.is_nan() {
        f64::NAN
    } else {
        v
    };
    Key::Number(v.to_bits())
}

struct Table {
    key_dtype: Option<DType>,
    value_dtype: Option<DType>,
    handle: TensorId,
    entries: HashMap<Key, TensorId>,
}

/// A model's tables (tfjs's `ResourceManager`): by the name of the node that made each, and by
/// handle.
#[derive(Default)]
pub struct Tables {
    by_name: HashMap<String, TensorId>,
    by_handle: HashMap<TensorId, Table>,
}

impl Tables {
    /// Disposes every table's handle and values.
    pub(crate) fn dispose(&mut self, e: &mut Engine) {
        for (_, t) in self.by_handle.drain() {
            for (_, id) in t.entries {
                e.dispose(id);
            }
            e.dispose(t.handle);
        }
        self.by_name.clear();
    }
}

fn dtype_name(d: Option<DType>) -> &'static str {
    d.map_or("undefined", |d| d.name())
}

impl Table {
    fn check(&self, e: &Engine, key: TensorId, value: TensorId) -> Result<()> {
        let (kd, vd) = (e.dtype(key)?, e.dtype(value)?);
        if Some(kd) != self.key_dtype {
            bail!("Expect key dtype {}, but got {}", dtype_name(self.key_dtype), kd.name());
        }
        if Some(vd) != self.value_dtype {
            bail!("Expect value dtype {}, but got {}", dtype_name(self.value_dtype), vd.name());
        }
        Ok(())
    }
}

fn keys_of(e: &Engine, id: TensorId) -> Result<Vec<Key>> {
    Ok(if e.dtype(id)? == DType::String {
        e.read_strings(id)?.into_iter().map(Key::Bytes).collect()
    } else {
        values(e, id)?.into_iter().map(number_key).collect()
    })
}

fn table(tables: &mut Tables, handle: TensorId) -> Result<&mut Table> {
    match tables.by_handle.get_mut(&handle) {
        Some(t) => Ok(t),
        None => bail!("Cannot read properties of undefined: the tableHandle input is not a hash table's handle"),
    }
}

pub(crate) fn run(e: &mut Engine, c: &Ctx, tables: &mut Tables) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    match op {
        "HashTable" | "HashTableV2" => {
            // A table the initializer made under this node's name is this one.
            if let Some(&handle) = tables.by_name.get(&c.node.name) {
                return Ok(vec![handle]);
            }
            let a = c.attrs();
            let handle = e.tensor(HostData::F32(vec![0.0]), &[])?;
            e.keep(handle);
            let t = Table {
                key_dtype: a.dtype("key_dtype").flatten(),
                value_dtype: a.dtype("value_dtype").flatten(),
                handle,
                entries: HashMap::new(),
            };
            tables.by_name.insert(c.node.name.clone(), handle);
            tables.by_handle.insert(handle, t);
            Ok(vec![handle])
        }
        "LookupTableImport" | "LookupTableImportV2" | "InitializeTable" | "InitializeTableV2" => {
            let (handle, keys, vals) = (c.t(0)?, c.t(1)?, c.t(2)?);
            let t = table(tables, handle)?;
            t.check(e, keys, vals)?;
            let ks = keys_of(e, keys)?;
            for (_, id) in t.entries.drain() {
                e.dispose(id);
            }
            // unstack(values): one tensor per row.
            let shape = e.shape(vals)?.to_vec();
            let rows = if shape.is_empty() {
                bail!("unstack: the values must be at least 1-D, but got a scalar")
            } else {
                e.unstack(vals, 0.0)?
            };
            if ks.len() != rows.len() {
                for id in rows {
                    e.dispose(id);
                }
                bail!(
                    "The number of elements doesn't match, keys has {} elements, the values has {} elements.",
                    ks.len(),
                    shape[0]
                );
            }
            for (k, row) in ks.into_iter().zip(rows) {
                e.keep(row);
                // A repeated key keeps its last value, as Map.set does.
                if let Some(old) = t.entries.insert(k, row) {
                    e.dispose(old);
                }
            }
            Ok(vec![t.handle])
        }
        "LookupTableFind" | "LookupTableFindV2" => {
            let (handle, keys, default) = (c.t(0)?, c.t(1)?, c.t(2)?);
            let t = table(tables, handle)?;
            t.check(e, keys, default)?;
            let picked: Vec<TensorId> =
                keys_of(e, keys)?.iter().map(|k| t.entries.get(k).copied().unwrap_or(default)).collect();
            Ok(vec![e.stack(&picked, 0)?])
        }
        "LookupTableSize" | "LookupTableSizeV2" => {
            let t = table(tables, c.t(0)?)?;
            let n = t.entries.len() as i32;
            Ok(vec![e.tensor(HostData::I32(vec![n]), &[])?])
        }
        _ => not_here(op),
    }
}
