//! `.npy` / `.npz` reading and writing (through ndarray-npy) for every dtype, 0-d and bool included.

use std::fs::File;
use std::io::{BufWriter, Cursor, Read, Write};
use std::path::Path;

use ndarray_npy::{NpzWriter, WriteNpyExt};

use crate::dtype::DType;
use crate::error::{Result, RuntimeError};
use crate::tensor::Tensor;
use crate::with_dtype;

fn io_err(e: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Io(e.to_string())
}

/// The format's magic string (NumPy's `format.MAGIC_PREFIX`).
const MAGIC: &[u8] = b"\x93NUMPY";

/// A `.npy` header longer than this is refused (NumPy's own reader limits it to 10,000 bytes by
/// default; ours is larger so that files of long shapes still load).
const MAX_HEADER_LEN: usize = 1 << 20;

fn bad(what: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Io(format!("invalid .npy file: {what}"))
}

/// What a `.npy` header says: the element type and byte order, the memory order and the shape.
#[derive(Clone, Debug, PartialEq)]
struct Header {
    dtype: DType,
    big_endian: bool,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// Reads a tensor from `.npy` bytes; the dtype comes from the file (`f4`, `f8`, `i8`, `i4`, `b1`,
/// either byte order; other dtypes are an error).
///
/// The header is parsed and checked before anything is allocated: the size it claims (shape ×
/// item size, computed without overflow) must be exactly the number of data bytes that follow, so
/// a hostile header cannot make the reader allocate more than the file holds.
pub fn read_npy_bytes(bytes: &[u8]) -> Result<Tensor> {
    let (header, data) = split_header(bytes)?;
    let h = parse_header(header)?;
    let numel = h
        .shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
    let need = numel.and_then(|n| n.checked_mul(h.dtype.size_of() as u64));
    let shape_text = format!("{:?}", h.shape);
    match need {
        Some(need) if need == data.len() as u64 => {}
        Some(need) => {
            return Err(bad(format!(
                "the header claims shape {shape_text} of {} ({need} bytes of data) but the file \
                 holds {} bytes of data",
                h.dtype,
                data.len()
            )));
        }
        None => {
            return Err(bad(format!(
                "the header's shape {shape_text} has more elements than memory can address"
            )));
        }
    }
    crate::tensor::check_alloc(&h.shape, h.dtype)?;
    if h.fortran_order {
        // Column-major data is the row-major data of the reversed shape, transposed back.
        let rev: Vec<usize> = h.shape.iter().rev().copied().collect();
        let perm: Vec<i64> = (0..h.shape.len() as i64).rev().collect();
        decode(data, h.dtype, h.big_endian, &rev)?
            .permute(&perm)?
            .contiguous()
    } else {
        decode(data, h.dtype, h.big_endian, &h.shape)
    }
}

/// Splits `.npy` bytes into the header text and the data, checking the magic string, the version
/// and the header length.
fn split_header(bytes: &[u8]) -> Result<(&str, &[u8])> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad("it does not start with the magic string \\x93NUMPY"))?;
    let (&major, rest) = rest.split_first().ok_or_else(|| bad("truncated version"))?;
    let (_minor, rest) = rest.split_first().ok_or_else(|| bad("truncated version"))?;
    let (len, rest) = match major {
        1 => {
            let (l, r) = rest
                .split_first_chunk::<2>()
                .ok_or_else(|| bad("truncated header length"))?;
            (u16::from_le_bytes(*l) as usize, r)
        }
        2 | 3 => {
            let (l, r) = rest
                .split_first_chunk::<4>()
                .ok_or_else(|| bad("truncated header length"))?;
            (u32::from_le_bytes(*l) as usize, r)
        }
        v => return Err(bad(format!("unsupported format version {v}"))),
    };
    if len > MAX_HEADER_LEN {
        return Err(bad(format!("header of {len} bytes is too long")));
    }
    if len > rest.len() {
        return Err(bad(format!(
            "the header claims {len} bytes but the file has {} left",
            rest.len()
        )));
    }
    let (header, data) = rest.split_at(len);
    // Versions 1 and 2 are latin-1, version 3 UTF-8; every valid header is ASCII.
    let header = std::str::from_utf8(header).map_err(|_| bad("the header is not text"))?;
    Ok((header, data))
}

/// One token of the header's Python literal.
#[derive(Clone, Debug, PartialEq)]
enum Tok<'a> {
    Punct(char),
    Str(&'a str),
    Int(u64),
    Name(&'a str),
}

fn tokenize(text: &str) -> Result<Vec<Tok<'_>>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' | b'}' | b'(' | b')' | b':' | b',' => {
                out.push(Tok::Punct(c as char));
                i += 1;
            }
            b'\'' | b'"' => {
                let end = b[i + 1..]
                    .iter()
                    .position(|&x| x == c)
                    .ok_or_else(|| bad("unterminated string in the header"))?;
                out.push(Tok::Str(&text[i + 1..i + 1 + end]));
                i += end + 2;
            }
            b'0'..=b'9' => {
                let end = b[i..]
                    .iter()
                    .position(|x| !x.is_ascii_digit())
                    .map_or(b.len(), |e| i + e);
                let n = text[i..end]
                    .parse::<u64>()
                    .map_err(|_| bad(format!("dimension {} is too large", &text[i..end])))?;
                // Python ints may carry an `L` suffix in files written by Python 2.
                i = if b.get(end) == Some(&b'L') {
                    end + 1
                } else {
                    end
                };
                out.push(Tok::Int(n));
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = b[i..]
                    .iter()
                    .position(|x| !(x.is_ascii_alphanumeric() || *x == b'_'))
                    .map_or(b.len(), |e| i + e);
                out.push(Tok::Name(&text[i..end]));
                i = end;
            }
            _ => {
                return Err(bad(format!(
                    "unexpected character {:?} in the header",
                    text[i..].chars().next().unwrap_or('?')
                )));
            }
        }
    }
    Ok(out)
}

/// Parses the header dictionary `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`
/// (keys in any order, each exactly once, nothing else), without recursion.
fn parse_header(text: &str) -> Result<Header> {
    let toks = tokenize(text)?;
    let mut it = toks.into_iter().peekable();
    let expect =
        |it: &mut std::iter::Peekable<std::vec::IntoIter<Tok<'_>>>, c: char| match it.next() {
            Some(Tok::Punct(p)) if p == c => Ok(()),
            other => Err(bad(format!(
                "expected `{c}` in the header, found {other:?}"
            ))),
        };
    // After an item: `,` (false: more may follow) or the closing `close` (true).
    let closed = |it: &mut std::iter::Peekable<std::vec::IntoIter<Tok<'_>>>,
                  close: char,
                  place: &str| match it.next() {
        Some(Tok::Punct(',')) => Ok(false),
        Some(Tok::Punct(p)) if p == close => Ok(true),
        other => Err(bad(format!(
            "expected `,` or `{close}` in {place}, found {other:?}"
        ))),
    };
    expect(&mut it, '{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        let key = match it.next() {
            Some(Tok::Punct('}')) => break,
            Some(Tok::Str(k)) => k,
            other => {
                return Err(bad(format!(
                    "expected a key in the header, found {other:?}"
                )));
            }
        };
        expect(&mut it, ':')?;
        match key {
            "descr" if descr.is_none() => match it.next() {
                Some(Tok::Str(d)) => descr = Some(d),
                other => return Err(bad(format!("'descr' must be a string, found {other:?}"))),
            },
            "fortran_order" if fortran.is_none() => match it.next() {
                Some(Tok::Name("True")) => fortran = Some(true),
                Some(Tok::Name("False")) => fortran = Some(false),
                other => {
                    return Err(bad(format!(
                        "'fortran_order' must be True or False, found {other:?}"
                    )));
                }
            },
            "shape" if shape.is_none() => {
                expect(&mut it, '(')?;
                let mut dims = Vec::new();
                loop {
                    match it.next() {
                        Some(Tok::Punct(')')) => break,
                        Some(Tok::Int(n)) => {
                            let d = usize::try_from(n)
                                .ok()
                                .filter(|&d| d <= isize::MAX as usize)
                                .ok_or_else(|| bad(format!("dimension {n} is too large")))?;
                            dims.push(d);
                            if closed(&mut it, ')', "the shape")? {
                                break;
                            }
                        }
                        other => {
                            return Err(bad(format!(
                                "the shape must be a tuple of non-negative ints, found {other:?}"
                            )));
                        }
                    }
                }
                shape = Some(dims);
            }
            k => {
                return Err(bad(format!(
                    "unexpected or repeated key '{k}' in the header"
                )));
            }
        }
        if closed(&mut it, '}', "the header")? {
            break;
        }
    }
    if let Some(t) = it.next() {
        return Err(bad(format!("unexpected {t:?} after the header dictionary")));
    }
    let descr = descr.ok_or_else(|| bad("the header has no 'descr'"))?;
    let fortran_order = fortran.ok_or_else(|| bad("the header has no 'fortran_order'"))?;
    let shape = shape.ok_or_else(|| bad("the header has no 'shape'"))?;
    let dtype = dtype_of_descr(descr)
        .ok_or_else(|| RuntimeError::Io(format!("unsupported .npy dtype '{descr}'")))?;
    let big_endian = descr.starts_with('>') && dtype.size_of() > 1;
    Ok(Header {
        dtype,
        big_endian,
        fortran_order,
        shape,
    })
}

/// Decodes the data bytes (their length already checked) into a row-major tensor of `shape`.
fn decode(data: &[u8], dtype: DType, big_endian: bool, shape: &[usize]) -> Result<Tensor> {
    macro_rules! num {
        ($t:ty) => {{
            const N: usize = std::mem::size_of::<$t>();
            // Big arrays on huge pages, as the kernels' own outputs (and NumPy's arrays).
            let mut v: Vec<$t> = crate::tensor::alloc_empty(data.len() / N)?;
            v.extend(data.chunks_exact(N).map(|c| {
                let mut b = [0u8; N];
                b.copy_from_slice(c);
                if big_endian {
                    <$t>::from_be_bytes(b)
                } else {
                    <$t>::from_le_bytes(b)
                }
            }));
            Tensor::from_vec(v, shape)
        }};
    }
    match dtype {
        DType::Float32 => num!(f32),
        DType::Float64 => num!(f64),
        DType::Int32 => num!(i32),
        DType::Int64 => num!(i64),
        DType::Bool => {
            let v = data
                .iter()
                .map(|&x| match x {
                    0 => Ok(false),
                    1 => Ok(true),
                    x => Err(bad(format!("invalid bool value {x}"))),
                })
                .collect::<Result<Vec<bool>>>()?;
            Tensor::from_vec(v, shape)
        }
    }
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

/// Reads every array of a `.npz` file, in archive order (names without the `.npy` suffix). Each
/// entry goes through [`read_npy_bytes`], so it gets the same checks as a `.npy` file.
pub fn read_npz(path: impl AsRef<Path>) -> Result<Vec<(String, Tensor)>> {
    let mut bytes = Vec::new();
    File::open(path.as_ref())
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| io_err(format!("{}: {e}", path.as_ref().display())))?;
    read_npz_bytes(&bytes)
}

/// [`read_npz`] on the bytes of an archive.
pub fn read_npz_bytes(bytes: &[u8]) -> Result<Vec<(String, Tensor)>> {
    let npz_err = |e: zip::result::ZipError| RuntimeError::Io(format!("invalid .npz file: {e}"));
    let mut z = zip::ZipArchive::new(Cursor::new(bytes)).map_err(npz_err)?;
    let mut out = Vec::with_capacity(z.len());
    for i in 0..z.len() {
        let mut entry = z.by_index(i).map_err(npz_err)?;
        let name = entry.name().to_string();
        // Only stored (uncompressed) entries are supported, so an entry's data is in `bytes`:
        // reading it allocates at most what the archive holds, whatever its directory claims.
        let mut data = Vec::new();
        (&mut entry)
            .take(bytes.len() as u64)
            .read_to_end(&mut data)
            .map_err(|e| RuntimeError::Io(format!("invalid .npz file: '{name}': {e}")))?;
        let t = read_npy_bytes(&data)
            .map_err(|e| RuntimeError::Io(format!("array '{name}' of the .npz file: {e}")))?;
        out.push((name.trim_end_matches(".npy").to_string(), t));
    }
    Ok(out)
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

    /// A version-1 `.npy` file with header dictionary `dict` followed by `data`.
    fn npy_file(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut header = dict.to_string();
        while !(MAGIC.len() + 4 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut out = MAGIC.to_vec();
        out.extend([1, 0]);
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        out.extend(data);
        out
    }

    #[test]
    fn huge_claimed_shape_is_an_error_not_an_allocation() {
        // Issue 17, crash 1: 10**12 float32 elements claimed, 48 bytes present.
        let f = npy_file(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }",
            &[0u8; 48],
        );
        let e = read_npy_bytes(&f).unwrap_err().to_string();
        assert!(e.contains("(4000000000000 bytes of data)"), "{e}");
        assert!(e.contains("holds 48 bytes"), "{e}");
    }

    #[test]
    fn overflowing_shape_is_an_error_not_a_panic() {
        // Issue 17, crash 2: `(0, 2**63)` made ndarray-npy panic with ShapeError/Overflow.
        let f = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 9223372036854775808), }",
            &[],
        );
        let e = read_npy_bytes(&f).unwrap_err().to_string();
        assert!(
            e.contains("dimension 9223372036854775808 is too large"),
            "{e}"
        );
        // Dimensions that fit one by one but whose product overflows.
        let f = npy_file(
            "{'descr': '<i8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }",
            &[],
        );
        let e = read_npy_bytes(&f).unwrap_err().to_string();
        assert!(e.contains("more elements than memory can address"), "{e}");
        // A zero dimension makes an empty array, as in NumPy; one whose other dimensions could
        // not be strided is refused by the tensor layer (an error too).
        let f = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 5), }",
            &[],
        );
        assert_eq!(read_npy_bytes(&f).unwrap().shape(), &[0, 5]);
        let f = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904), }",
            &[],
        );
        assert!(read_npy_bytes(&f).is_err());
    }

    #[test]
    fn header_forms_numpy_writes() {
        // Fortran order, big endian, key order, double quotes, no trailing comma.
        let data: Vec<u8> = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]
            .iter()
            .flat_map(|x| x.to_be_bytes())
            .collect();
        let f = npy_file(
            "{\"shape\": (2, 3), \"fortran_order\": True, \"descr\": \">f8\"}",
            &data,
        );
        let t = read_npy_bytes(&f).unwrap();
        assert_eq!(t.shape(), &[2, 3]);
        // Column-major: the first column is 1, 2.
        let want = Tensor::from_vec(vec![1.0f64, 3.0, 5.0, 2.0, 4.0, 6.0], &[2, 3]).unwrap();
        assert_eq!(t, want);
        let b = npy_file(
            "{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}",
            &[1, 0],
        );
        assert_eq!(
            read_npy_bytes(&b).unwrap(),
            Tensor::from_slice(&[true, false])
        );
    }

    #[test]
    fn malformed_files_are_errors() {
        let ok = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
        let cases: Vec<Vec<u8>> = vec![
            npy_file(ok, &[0; 7]),
            npy_file(ok, &[0; 9]),
            npy_file(
                "{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }",
                &[0; 8],
            ),
            npy_file(
                "{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }",
                &[0; 8],
            ),
            npy_file(
                "{'descr': '<i4', 'fortran_order': 0, 'shape': (2,), }",
                &[0; 8],
            ),
            npy_file("{'descr': '<i4', 'shape': (2,), }", &[0; 8]),
            npy_file("{'descr': '<i4', 'descr': '<i4', 'shape': (2,), }", &[0; 8]),
            npy_file(
                "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
                &[0; 8],
            ),
            npy_file(
                "{'descr': '<i4', 'fortran_order': False, 'shape': ((2,),), }",
                &[0; 8],
            ),
            npy_file("{'descr: '<i4'}", &[]),
            npy_file(
                "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }",
                &[2],
            ),
            b"\x93NUMPY\x01\x00\xff\xff{".to_vec(),
            b"\x93NUMPY\x07\x00\x10\x00".to_vec(),
            b"\x93NUMPY".to_vec(),
        ];
        for (i, c) in cases.iter().enumerate() {
            assert!(read_npy_bytes(c).is_err(), "case {i} was accepted");
        }
        // Every prefix and every one-byte change of a valid file is an error or a tensor, never
        // a panic.
        let good = npy_file(ok, &[1, 0, 0, 0, 2, 0, 0, 0]);
        for n in 0..good.len() {
            let _ = read_npy_bytes(&good[..n]);
            for x in [0u8, b'(', b')', b'9', b',', 0xff] {
                let mut m = good.clone();
                m[n] = x;
                let _ = read_npy_bytes(&m);
            }
        }
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
