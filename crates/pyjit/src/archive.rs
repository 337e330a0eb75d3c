//! Saved programs: the `.pyjit` archive format (`pyjit.save`/`pyjit.load`, `pyjit compile
//! --save`, `pyjit run f.pyjit`).
//!
//! An archive holds a scripted function's source (with its file name and first line), the
//! scripted IR as text and the signatures it was specialized for — like TorchScript's zip of
//! code and debug info, but nothing in it is ever executed or deserialized into code: loading
//! *compiles the source again* and checks that the IR it gets is the IR saved (same pyjit
//! version), then compiles the saved signatures. A corrupt, truncated or hostile archive is an
//! [`ArchiveError`], never a crash: every length is bounded by the bytes present, every text is
//! checked UTF-8, a checksum covers everything, and tensor ranks are capped.
//!
//! The format (version [`FORMAT_VERSION`]) is text headers with length-prefixed sections:
//!
//! ```text
//! PYJIT-ARCHIVE
//! format 1
//! pyjit 0.1.0
//! kind script
//! function NAME
//! file FILE-NAME
//! first-line N
//! math fast                    (only when compiled with fastmath; absent: the exact kernels)
//! section source LEN
//! <LEN bytes>
//! section ir LEN
//! <LEN bytes>
//! section signature LEN        (zero or more: one per specialization, see `encode_key`)
//! <LEN bytes>
//! checksum HEX16               (FNV-1a 64 of every byte before this line)
//! ```

use crate::program::ArgKey;
use pyjit_ir::Type;
use pyjit_runtime::DType;

/// The archive format this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// The first line of every archive.
pub const MAGIC: &str = "PYJIT-ARCHIVE";
/// Longest header line accepted.
const MAX_LINE: usize = 4096;
/// Most signatures an archive may list.
const MAX_SIGNATURES: usize = 4096;
/// Highest tensor rank a saved signature may name (the runtime's ranks are far below).
const MAX_RANK: u32 = 64;
/// Deepest tuple nesting a saved signature may use.
const MAX_DEPTH: usize = 32;

/// Why an archive could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ArchiveError(pub String);

fn err(m: impl Into<String>) -> ArchiveError {
    ArchiveError(m.into())
}

/// A saved scripted function.
#[derive(Clone, Debug, PartialEq)]
pub struct Archive {
    /// The pyjit version that wrote it.
    pub pyjit_version: String,
    /// The function's name.
    pub function: String,
    /// The file name its diagnostics show.
    pub file: String,
    /// The line of the file the source starts on.
    pub first_line: u32,
    /// The source text.
    pub source: String,
    /// The scripted (generic) IR, as printed when it was saved.
    pub ir: String,
    /// The signatures it was specialized for, as argument-kind keys.
    pub signatures: Vec<SavedSignature>,
    /// Compiled with fastmath (its IR has the fast forms): loading compiles it so again.
    pub fastmath: bool,
}

/// One saved signature: a key per argument.
pub type SavedSignature = Vec<SavedKey>;

/// The kind of one argument of a saved signature: what is needed to compile it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SavedKey {
    /// A tensor of this dtype and rank.
    Tensor(DType, u32),
    /// `int`.
    Int,
    /// `float`.
    Float,
    /// `bool`.
    Bool,
    /// `None`.
    None,
    /// `str`.
    Str,
    /// A dtype.
    DType,
    /// A list (of the parameter's declared element type).
    List,
    /// A tuple of these.
    Tuple(Vec<SavedKey>),
}

impl SavedKey {
    /// The saved form of a code-cache key; `None` for keys no caller can pass (index values).
    pub fn of(k: &ArgKey) -> Option<SavedKey> {
        Some(match k {
            ArgKey::Tensor { dtype, rank } => SavedKey::Tensor(*dtype, *rank),
            ArgKey::Scalar(t) => match t {
                Type::Int => SavedKey::Int,
                Type::Float => SavedKey::Float,
                Type::Bool => SavedKey::Bool,
                Type::None => SavedKey::None,
                Type::Str => SavedKey::Str,
                Type::DType => SavedKey::DType,
                _ => return None,
            },
            ArgKey::Tuple(items) => {
                SavedKey::Tuple(items.iter().map(SavedKey::of).collect::<Option<_>>()?)
            }
            ArgKey::List(_) => SavedKey::List,
        })
    }

    fn encode(&self, out: &mut String) {
        match self {
            SavedKey::Tensor(d, r) => out.push_str(&format!("T{}:{r}", d.name())),
            SavedKey::Int => out.push('i'),
            SavedKey::Float => out.push('f'),
            SavedKey::Bool => out.push('b'),
            SavedKey::None => out.push('n'),
            SavedKey::Str => out.push('s'),
            SavedKey::DType => out.push('d'),
            SavedKey::List => out.push('L'),
            SavedKey::Tuple(items) => {
                out.push('(');
                for (i, k) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    k.encode(out);
                }
                out.push(')');
            }
        }
    }
}

/// `key,key,...` for one signature.
fn encode_signature(sig: &[SavedKey]) -> String {
    let mut s = String::new();
    for (i, k) in sig.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        k.encode(&mut s);
    }
    s
}

/// Parses [`encode_signature`]'s output.
fn decode_signature(text: &str) -> Result<SavedSignature, ArchiveError> {
    let b = text.as_bytes();
    let mut pos = 0;
    let mut out = Vec::new();
    if b.is_empty() {
        return Ok(out);
    }
    loop {
        out.push(decode_key(b, &mut pos, 0)?);
        match b.get(pos) {
            None => return Ok(out),
            Some(b',') => pos += 1,
            Some(_) => return Err(err(format!("bad signature `{text}`"))),
        }
    }
}

fn decode_key(b: &[u8], pos: &mut usize, depth: usize) -> Result<SavedKey, ArchiveError> {
    if depth > MAX_DEPTH {
        return Err(err("signature nests tuples too deeply"));
    }
    let c = *b.get(*pos).ok_or_else(|| err("truncated signature"))?;
    *pos += 1;
    Ok(match c {
        b'i' => SavedKey::Int,
        b'f' => SavedKey::Float,
        b'b' => SavedKey::Bool,
        b'n' => SavedKey::None,
        b's' => SavedKey::Str,
        b'd' => SavedKey::DType,
        b'L' => SavedKey::List,
        b'T' => {
            let rest = &b[*pos..];
            let colon = rest
                .iter()
                .position(|&c| c == b':')
                .ok_or_else(|| err("tensor key without rank"))?;
            let name = std::str::from_utf8(&rest[..colon]).map_err(|_| err("bad dtype"))?;
            let dtype = DType::from_name(name).ok_or_else(|| err(format!("bad dtype `{name}`")))?;
            let digits = rest[colon + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            let rank: u32 = std::str::from_utf8(&rest[colon + 1..colon + 1 + digits])
                .ok()
                .and_then(|s| s.parse().ok())
                .filter(|&r| r <= MAX_RANK)
                .ok_or_else(|| err(format!("bad tensor rank (at most {MAX_RANK})")))?;
            *pos += colon + 1 + digits;
            SavedKey::Tensor(dtype, rank)
        }
        b'(' => {
            let mut items = Vec::new();
            if b.get(*pos) == Some(&b')') {
                *pos += 1;
                return Ok(SavedKey::Tuple(items));
            }
            loop {
                items.push(decode_key(b, pos, depth + 1)?);
                match b.get(*pos) {
                    Some(b',') => *pos += 1,
                    Some(b')') => {
                        *pos += 1;
                        return Ok(SavedKey::Tuple(items));
                    }
                    _ => return Err(err("unterminated tuple in signature")),
                }
            }
        }
        other => return Err(err(format!("bad signature key `{}`", other as char))),
    })
}

/// FNV-1a, 64 bits: a checksum against corruption (not a defence against a forger, who could
/// recompute it; loading is safe against those anyway, because nothing saved is executed).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Whether `bytes` look like an archive (start with its first line).
pub fn is_archive(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC.as_bytes()) && bytes.get(MAGIC.len()) == Some(&b'\n')
}

impl Archive {
    /// The archive's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let one_line = |s: &str| s.replace(['\n', '\r'], " ");
        let mut out = Vec::new();
        let header = |out: &mut Vec<u8>, line: String| {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        };
        header(&mut out, MAGIC.to_string());
        header(&mut out, format!("format {FORMAT_VERSION}"));
        header(&mut out, format!("pyjit {}", one_line(&self.pyjit_version)));
        header(&mut out, "kind script".to_string());
        header(&mut out, format!("function {}", one_line(&self.function)));
        header(&mut out, format!("file {}", one_line(&self.file)));
        header(&mut out, format!("first-line {}", self.first_line));
        if self.fastmath {
            header(&mut out, "math fast".to_string());
        }
        let section = |out: &mut Vec<u8>, name: &str, body: &str| {
            out.extend_from_slice(format!("section {name} {}\n", body.len()).as_bytes());
            out.extend_from_slice(body.as_bytes());
            out.push(b'\n');
        };
        section(&mut out, "source", &self.source);
        section(&mut out, "ir", &self.ir);
        for s in &self.signatures {
            section(&mut out, "signature", &encode_signature(s));
        }
        let sum = fnv1a64(&out);
        out.extend_from_slice(format!("checksum {sum:016x}\n").as_bytes());
        out
    }

    /// Reads an archive; any defect is an error naming it.
    pub fn from_bytes(bytes: &[u8]) -> Result<Archive, ArchiveError> {
        let mut r = Reader { b: bytes, pos: 0 };
        if r.line()? != MAGIC {
            return Err(err("not a pyjit archive (no PYJIT-ARCHIVE header)"));
        }
        let version = r.field("format")?;
        let version: u32 = version
            .parse()
            .map_err(|_| err(format!("bad format version `{version}`")))?;
        if version != FORMAT_VERSION {
            return Err(err(format!(
                "archive format version {version} is not supported: this pyjit ({}) reads version {FORMAT_VERSION}; save the function again with this version",
                env!("CARGO_PKG_VERSION")
            )));
        }
        let pyjit_version = r.field("pyjit")?.to_string();
        let kind = r.field("kind")?;
        if kind != "script" {
            return Err(err(format!("unknown archive kind `{kind}`")));
        }
        let function = r.field("function")?.to_string();
        let file = r.field("file")?.to_string();
        let first_line = r.field("first-line")?;
        let first_line: u32 = first_line
            .parse()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| err(format!("bad first-line `{first_line}`")))?;
        // An optional `math MODE` line (archives without it use the exact kernels).
        let before_math = r.pos;
        let fastmath = match r.line()?.strip_prefix("math ") {
            Some("fast") => true,
            Some(mode) => return Err(err(format!("unknown math mode `{mode}`"))),
            None => {
                r.pos = before_math;
                false
            }
        };
        let source = r.section("source")?.to_string();
        let ir = r.section("ir")?.to_string();
        let mut signatures = Vec::new();
        loop {
            let body_start = r.pos;
            let line = r.line()?;
            if let Some(sum) = line.strip_prefix("checksum ") {
                if sum != format!("{:016x}", fnv1a64(&bytes[..body_start])) {
                    return Err(err(
                        "archive checksum mismatch: the file is corrupt or was altered",
                    ));
                }
                if r.pos != bytes.len() {
                    return Err(err("trailing bytes after the checksum"));
                }
                break;
            }
            r.pos = body_start;
            if signatures.len() >= MAX_SIGNATURES {
                return Err(err("too many signatures"));
            }
            signatures.push(decode_signature(r.section("signature")?)?);
        }
        Ok(Archive {
            pyjit_version,
            function,
            file,
            first_line,
            source,
            ir,
            signatures,
            fastmath,
        })
    }
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn line(&mut self) -> Result<&'a str, ArchiveError> {
        let rest = &self.b[self.pos..];
        let n = rest
            .iter()
            .take(MAX_LINE + 1)
            .position(|&c| c == b'\n')
            .ok_or_else(|| err("truncated archive (a header line does not end)"))?;
        let line = std::str::from_utf8(&rest[..n]).map_err(|_| err("header is not UTF-8"))?;
        self.pos += n + 1;
        Ok(line)
    }

    fn field(&mut self, name: &str) -> Result<&'a str, ArchiveError> {
        let line = self.line()?;
        line.strip_prefix(name)
            .and_then(|r| r.strip_prefix(' '))
            .ok_or_else(|| err(format!("expected `{name} ...`, found `{line}`")))
    }

    fn section(&mut self, name: &str) -> Result<&'a str, ArchiveError> {
        let line = self.line()?;
        let len = line
            .strip_prefix("section ")
            .and_then(|r| r.strip_prefix(name))
            .and_then(|r| r.strip_prefix(' '))
            .ok_or_else(|| err(format!("expected section `{name}`, found `{line}`")))?;
        let len: usize = len
            .parse()
            .map_err(|_| err(format!("bad length of section `{name}`")))?;
        let rest = &self.b[self.pos..];
        if rest.len() < len.saturating_add(1) || rest[len] != b'\n' {
            return Err(err(format!("truncated archive (section `{name}`)")));
        }
        let body = std::str::from_utf8(&rest[..len])
            .map_err(|_| err(format!("section `{name}` is not UTF-8")))?;
        self.pos += len + 1;
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Archive {
        Archive {
            pyjit_version: "0.1.0".into(),
            function: "f".into(),
            file: "m.py".into(),
            first_line: 3,
            source: "def f(x):\n    return x\n".into(),
            ir: "func @f(...)\n".into(),
            signatures: vec![
                vec![SavedKey::Tensor(DType::Float32, 2), SavedKey::Float],
                vec![
                    SavedKey::Tuple(vec![SavedKey::Int, SavedKey::Tuple(vec![])]),
                    SavedKey::List,
                    SavedKey::None,
                ],
                vec![],
            ],
            fastmath: false,
        }
    }

    #[test]
    fn round_trip() {
        let a = sample();
        assert_eq!(Archive::from_bytes(&a.to_bytes()), Ok(a));
        let fast = Archive {
            fastmath: true,
            ..sample()
        };
        let bytes = fast.to_bytes();
        assert!(String::from_utf8_lossy(&bytes).contains("\nmath fast\n"));
        assert_eq!(Archive::from_bytes(&bytes), Ok(fast));
    }

    #[test]
    fn an_unknown_math_mode_is_an_error() {
        let bytes = String::from_utf8(sample().to_bytes())
            .unwrap()
            .replace("first-line 3\n", "first-line 3\nmath loose\n");
        // (The checksum is recomputed by nothing: the mode is checked before it.)
        let e = Archive::from_bytes(bytes.as_bytes()).unwrap_err();
        assert!(e.0.contains("unknown math mode `loose`"), "{e}");
    }

    #[test]
    fn version_mismatch_is_a_clear_error() {
        let bytes = String::from_utf8(sample().to_bytes())
            .unwrap()
            .replace("format 1", "format 2");
        let e = Archive::from_bytes(bytes.as_bytes()).unwrap_err();
        assert!(e.0.contains("format version 2 is not supported"), "{e}");
        assert!(e.0.contains("reads version 1"), "{e}");
    }

    #[test]
    fn any_change_or_truncation_is_detected() {
        let bytes = sample().to_bytes();
        for cut in 0..bytes.len() {
            assert!(Archive::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            assert!(Archive::from_bytes(&b).is_err(), "flipped byte {i}");
        }
    }

    #[test]
    fn hostile_lengths_and_ranks_are_errors() {
        for text in [
            "PYJIT-ARCHIVE\nformat 1\npyjit x\nkind script\nfunction f\nfile f\nfirst-line 1\nsection source 18446744073709551615\n",
            "PYJIT-ARCHIVE\nformat 1\npyjit x\nkind script\nfunction f\nfile f\nfirst-line 0\n",
            "PYJIT-ARCHIVE\nformat 99999999999999999999\n",
        ] {
            assert!(Archive::from_bytes(text.as_bytes()).is_err(), "{text}");
        }
        assert!(decode_signature("Tfloat32:65").is_err());
        assert!(decode_signature("Tfloat32:99999999999999999999").is_err());
        assert!(decode_signature(&"(".repeat(100)).is_err());
        assert!(decode_signature("Tbogus:1").is_err());
        assert_eq!(
            decode_signature("Tint64:0,(i,f)").unwrap(),
            vec![
                SavedKey::Tensor(DType::Int64, 0),
                SavedKey::Tuple(vec![SavedKey::Int, SavedKey::Float])
            ]
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The loader never panics, whatever the bytes.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = Archive::from_bytes(&bytes);
        }

        /// Nor on a real archive with random bytes overwritten (valid headers, broken bodies).
        #[test]
        fn mutated_archives_never_panic(
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
            cut in any::<usize>(),
        ) {
            let mut b = sample().to_bytes();
            for (i, v) in edits {
                let n = b.len();
                b[i % n] = v;
            }
            let n = b.len();
            b.truncate(n - cut % (n / 4).max(1));
            let _ = Archive::from_bytes(&b);
        }

        /// Signature text never panics the decoder.
        #[test]
        fn signature_text_never_panics(s in "[TfibnsdL(),:0-9a-z]{0,64}") {
            let _ = decode_signature(&s);
        }
    }
}
