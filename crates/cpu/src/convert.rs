//! Number conversions with the semantics of JavaScript typed arrays, which is how tfjs stores
//! every kernel result.

use crate::HostData;
use tidytensor_core::js_to_int32;

/// A value a kernel computes: convertible to each storage type the way tfjs stores it.
pub(crate) trait Num: Copy + Send + Sync + 'static {
    fn to_f32(self) -> f32;
    fn to_i32(self) -> i32;
    /// `x !== 0` (NaN is true).
    fn to_bool(self) -> u8;
    fn to_f64(self) -> f64;
}

impl Num for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn to_i32(self) -> i32 {
        js_to_int32(self as f64)
    }
    #[inline(always)]
    fn to_bool(self) -> u8 {
        (self != 0.0) as u8
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Num for f64 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
    #[inline(always)]
    fn to_i32(self) -> i32 {
        js_to_int32(self)
    }
    #[inline(always)]
    fn to_bool(self) -> u8 {
        (self != 0.0) as u8
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}

/// Integer values: i32 (int32), i64 (wide integer sums; `as i32` wraps modulo 2^32 like
/// `Int32Array`), u8 (bool, 0 and 1).
macro_rules! int_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            #[inline(always)]
            fn to_f32(self) -> f32 {
                self as f32
            }
            #[inline(always)]
            fn to_i32(self) -> i32 {
                self as i32
            }
            #[inline(always)]
            fn to_bool(self) -> u8 {
                (self != 0) as u8
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
int_num!(i32, i64, u8);

/// A storage element type.
pub(crate) trait OutElem: Num + Default {
    fn from_num<R: Num>(r: R) -> Self;
    fn wrap(v: Vec<Self>) -> HostData;
}

impl OutElem for f32 {
    #[inline(always)]
    fn from_num<R: Num>(r: R) -> Self {
        r.to_f32()
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::F32(v)
    }
}

impl OutElem for i32 {
    #[inline(always)]
    fn from_num<R: Num>(r: R) -> Self {
        r.to_i32()
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::I32(v)
    }
}

impl OutElem for u8 {
    /// A computed value stored in a bool tensor is true when the Uint8Array tfjs stores it in
    /// would hold a nonzero byte (NaN, ±Infinity and 0.5 store as 0). `cast` to bool is
    /// `x !== 0` instead, where NaN is true.
    #[inline(always)]
    fn from_num<R: Num>(r: R) -> Self {
        let v = r.to_f64();
        (v.is_finite() && v.trunc().rem_euclid(256.0) != 0.0) as u8
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::Bool(v)
    }
}

/// Runs `$body` with `$O` naming the storage element type of dtype `$out`; `$body` yields a
/// `Vec<$O>`, which becomes [`HostData`].
macro_rules! with_out {
    ($out:expr, $O:ident => $body:expr) => {
        match $out {
            tidytensor_core::DType::Float32 => {
                type $O = f32;
                <$O as $crate::convert::OutElem>::wrap($body)
            }
            tidytensor_core::DType::Int32 => {
                type $O = i32;
                <$O as $crate::convert::OutElem>::wrap($body)
            }
            tidytensor_core::DType::Bool => {
                type $O = u8;
                <$O as $crate::convert::OutElem>::wrap($body)
            }
            d => tidytensor_core::numeric_only(d),
        }
    };
}
pub(crate) use with_out;
