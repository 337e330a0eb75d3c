//! The tensor values the unit tests make and read, of the API's value type and the
//! interpreter's alike.

use pyjit_runtime::Tensor;

/// A value type with a tensor variant.
pub(crate) trait TensorValue: From<Tensor> {
    fn tensor(&self) -> Option<&Tensor>;
}

impl TensorValue for crate::api::Value {
    fn tensor(&self) -> Option<&Tensor> {
        self.as_tensor()
    }
}

impl TensorValue for pyjit_interp::Value {
    fn tensor(&self) -> Option<&Tensor> {
        self.as_tensor()
    }
}

/// The float32 vector `v` as a tensor value.
pub(crate) fn t<V: TensorValue>(v: &[f32]) -> V {
    Tensor::from_slice(v).into()
}

/// The elements of float32 tensor value `v`.
pub(crate) fn vals(v: &impl TensorValue) -> Vec<f32> {
    v.tensor().expect("a tensor").to_vec::<f32>()
}
