//! `.npy` / `.npz` reading and writing (through ndarray-npy) for every dtype, 0-d and bool included.

use std::fs::File;
use std::io::{BufReader, BufWriter, Cursor, Read, Seek, Write};
use std::path::Path;

use ndarray::{ArrayD, OwnedRepr};
use ndarray_npy::{NpzReader, NpzWriter, ReadNpyError, ReadNpyExt, WriteNpyExt};

use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Result, RuntimeError};
use crate::tensor::Tensor;
use crate::with_dtype;

fn io_err(e: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Io(e.to_string())
}

/// Reads a tensor from `.npy` bytes; the dtype comes from the file (`<f4`, `<f8`, `<i8`, `<i4`,
/// `|b1`; other dtypes are an error).
pub fn read_npy_bytes(bytes: &[u8]) -> Result<Tensor> {
    fn attempt<T: Element + ndarray_npy::ReadableElement>(bytes: &[u8]) -> Option<Result<Tensor>> {
        match ArrayD::<T>::read_npy(Cursor::new(bytes)) {
            Ok(a) => Some(Ok(Tensor::from_array(a))),
            Err(ReadNpyError::WrongDescriptor(_)) => None,
            Err(e) => Some(Err(io_err(e))),
        }
    }
    attempt::<f32>(bytes)
        .or_else(|| attempt::<f64>(bytes))
        .or_else(|| attempt::<i64>(bytes))
        .or_else(|| attempt::<i32>(bytes))
        .or_else(|| attempt::<bool>(bytes))
        .unwrap_or_else(|| Err(RuntimeError::Io("unsupported .npy dtype".into())))
}

/// Reads a `.npy` file.
pub fn read_npy(path: impl AsRef<Path>) -> Result<Tensor> {
    let mut bytes = Vec::new();
    File::open(path.as_ref())
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| io_err(format!("{}: {e}", path.as_ref().display())))?;
    read_npy_bytes(&bytes)
}

/// Serializes a tensor as `.npy` bytes (row-major, little endian).
pub fn write_npy_bytes(t: &Tensor) -> Result<Vec<u8>> {
    crate::tensor::check_alloc(t.shape(), t.dtype())?;
    let mut out = Vec::new();
    with_dtype!(t.dtype(), T => {
        t.to_array::<T>().write_npy(&mut out).map_err(io_err)?;
    });
    Ok(out)
}

/// Writes a `.npy` file.
pub fn write_npy(path: impl AsRef<Path>, t: &Tensor) -> Result<()> {
    let bytes = write_npy_bytes(t)?;
    let mut f = File::create(path.as_ref())
        .map_err(|e| io_err(format!("{}: {e}", path.as_ref().display())))?;
    f.write_all(&bytes).map_err(io_err)
}

fn npz_entry<R: Read + Seek>(z: &mut NpzReader<R>, name: &str) -> Result<Tensor> {
    macro_rules! try_as {
        ($t:ty) => {
            match z.by_name::<OwnedRepr<$t>, ndarray::IxDyn>(name) {
                Ok(a) => return Ok(Tensor::from_array(a)),
                Err(ndarray_npy::ReadNpzError::Npy(ReadNpyError::WrongDescriptor(_))) => {}
                Err(e) => return Err(io_err(e)),
            }
        };
    }
    try_as!(f32);
    try_as!(f64);
    try_as!(i64);
    try_as!(i32);
    try_as!(bool);
    Err(RuntimeError::Io(format!(
        "unsupported dtype for array '{name}'"
    )))
}

/// Reads every array of a `.npz` file, in archive order (names without the `.npy` suffix).
pub fn read_npz(path: impl AsRef<Path>) -> Result<Vec<(String, Tensor)>> {
    let f = File::open(path.as_ref())
        .map_err(|e| io_err(format!("{}: {e}", path.as_ref().display())))?;
    let mut z = NpzReader::new(BufReader::new(f)).map_err(io_err)?;
    let names = z.names().map_err(io_err)?;
    names
        .into_iter()
        .map(|n| {
            let t = npz_entry(&mut z, &n)?;
            Ok((n.trim_end_matches(".npy").to_string(), t))
        })
        .collect()
}

/// Writes tensors into an (uncompressed) `.npz` file.
pub fn write_npz(path: impl AsRef<Path>, arrays: &[(&str, &Tensor)]) -> Result<()> {
    let f = File::create(path.as_ref())
        .map_err(|e| io_err(format!("{}: {e}", path.as_ref().display())))?;
    let mut z = NpzWriter::new(BufWriter::new(f));
    for (name, t) in arrays {
        with_dtype!(t.dtype(), T => {
            z.add_array(*name, &t.to_array::<T>()).map_err(io_err)?;
        });
    }
    z.finish().map_err(io_err)?;
    Ok(())
}

/// The dtype an `.npy` header names, if supported (for callers that only peek).
pub fn dtype_of_descr(descr: &str) -> Option<DType> {
    Some(match descr.trim_start_matches(['<', '>', '|', '=']) {
        "f4" => DType::Float32,
        "f8" => DType::Float64,
        "i8" => DType::Int64,
        "i4" => DType::Int32,
        "b1" => DType::Bool,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Scalar;

    #[test]
    fn npy_round_trip_all_dtypes_and_0d() {
        for d in DType::ALL {
            for shape in [&[][..], &[0][..], &[2, 3][..]] {
                let n = shape.iter().product::<usize>() as i64;
                let t = crate::ops::arange(Scalar::Int(0), Scalar::Int(n), Scalar::Int(1), None)
                    .unwrap()
                    .to_dtype(d)
                    .unwrap()
                    .reshape(&shape.iter().map(|&x| x as i64).collect::<Vec<_>>())
                    .unwrap();
                let t = if d == DType::Bool {
                    t
                } else {
                    t.t().unwrap_or(t)
                };
                let bytes = write_npy_bytes(&t).unwrap();
                let back = read_npy_bytes(&bytes).unwrap();
                assert_eq!(back, t.contiguous().unwrap(), "{d} {shape:?}");
            }
        }
        assert!(read_npy_bytes(b"garbage").is_err());
    }

    #[test]
    fn npz_round_trip() {
        let dir = std::env::temp_dir().join(format!("pyjit-npz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.npz");
        let a = Tensor::from_slice(&[true, false]);
        let b = Tensor::scalar(Scalar::Float(2.5));
        write_npz(&p, &[("a", &a), ("b", &b)]).unwrap();
        let back = read_npz(&p).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].0, "a");
        assert_eq!(back[0].1, a);
        assert_eq!(back[1].1, b);
        std::fs::remove_dir_all(&dir).ok();
    }
}
