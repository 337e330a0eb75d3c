//! The opt-in on-disk cache of specializations ([`Options::cache`](crate::Options::cache);
//! `pyjit.script(fn, cache=True)`, directory `$PYJIT_CACHE_DIR`).
//!
//! **What is cached** is the *optimized, specialized IR* of a function for one call signature —
//! the output of specialization and the `-O` pipeline — as IR text, not machine code: a hit skips
//! specialization and the passes, and Cranelift compiles the cached IR (code generation is not
//! skipped; storing relocatable machine code is not implemented).
//!
//! An entry's key is the pyjit version, the CPU's features, a hash of the source text and its
//! file name, the function, the signature, the pass pipeline and the math mode (fastmath or
//! not: the same source compiles to other IR); the entry repeats the key, so a
//! stale entry (another source, version, CPU or pipeline that happened to collide on the
//! file name) is detected and ignored. A corrupt entry — bad header, checksum mismatch, IR that
//! does not parse or verify — is never used: the specialization is compiled again and the entry
//! rewritten. Nothing in the cache is executed without passing the IR verifier first, and the
//! cache only ever holds what this compiler produced.

use crate::archive::fnv1a64;
use pyjit_ir::{FuncId, Module};
use pyjit_syntax::SourceFile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const HEADER: &str = "pyjit-cache 1";

/// A directory of cached specializations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeCache {
    dir: PathBuf,
}

/// The CPU features code generation may use, as part of every key.
pub fn cpu_features() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        let mut f = vec!["x86_64"];
        macro_rules! probe {
            ($($name:tt),*) => {
                $(if std::arch::is_x86_feature_detected!($name) { f.push($name); })*
            };
        }
        probe!(
            "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "bmi1", "bmi2", "lzcnt", "avx512f"
        );
        f.join("+")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::consts::ARCH.to_string()
    }
}

impl CodeCache {
    /// A cache in `dir` (created when the first entry is written).
    pub fn new(dir: impl Into<PathBuf>) -> CodeCache {
        CodeCache { dir: dir.into() }
    }

    /// `$PYJIT_CACHE_DIR`, else `$XDG_CACHE_HOME/pyjit`, else `~/.cache/pyjit`.
    pub fn default_dir() -> Option<PathBuf> {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        var("PYJIT_CACHE_DIR")
            .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("pyjit")))
            .or_else(|| var("HOME").map(|h| h.join(".cache").join("pyjit")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key text of a specialization: everything its IR depends on (`fastmath`: whether the
    /// program was built with the fast math forms).
    pub fn key(
        source: &SourceFile,
        function: &str,
        signature: &str,
        pipeline: &str,
        fastmath: bool,
    ) -> String {
        format!(
            "pyjit {} | cpu {} | source {:016x} {} | function {function} | signature {signature} | passes {pipeline} | math {}",
            env!("CARGO_PKG_VERSION"),
            cpu_features(),
            fnv1a64(source.text.as_bytes()),
            source.name.replace(['\n', '|'], " "),
            if fastmath { "fast" } else { "exact" },
        )
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(format!("{:016x}.pyjit-ir", fnv1a64(key.as_bytes())))
    }

    /// The cached module for `key`, if a valid entry exists: its header, key and checksum match,
    /// and its IR parses against `source` and verifies. Entry function: `entry` by name.
    pub fn load(
        &self,
        key: &str,
        source: &Arc<SourceFile>,
        entry: &str,
    ) -> Option<(Module, FuncId)> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let text = std::str::from_utf8(&bytes).ok()?;
        let (body, sum) = text.rsplit_once("checksum ")?;
        if sum.trim_end() != format!("{:016x}", fnv1a64(body.as_bytes())) {
            return None;
        }
        let rest = body.strip_prefix(HEADER)?.strip_prefix('\n')?;
        let (stored_key, ir) = rest.split_once('\n')?;
        if stored_key != format!("key {key}") {
            return None;
        }
        let mut m = pyjit_ir::parse_module_with_source(ir, source.clone()).ok()?;
        pyjit_ir::verify_module(&m).ok()?;
        if m.source.is_none() {
            m.source = Some(source.clone());
        }
        let id = m.function_by_name(entry)?;
        Some((m, id))
    }

    /// Writes the entry for `key` (atomically: a temporary file renamed into place). Failures
    /// (a read-only directory, a full disk) only mean there is no entry.
    pub fn store(&self, key: &str, module: &Module) {
        let mut body = format!("{HEADER}\nkey {key}\n");
        body.push_str(&pyjit_ir::print_module(module));
        let sum = fnv1a64(body.as_bytes());
        body.push_str(&format!("checksum {sum:016x}\n"));
        let path = self.path(key);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let ok = std::fs::create_dir_all(&self.dir).is_ok()
            && std::fs::write(&tmp, body).is_ok()
            && std::fs::rename(&tmp, &path).is_ok();
        if !ok {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}
