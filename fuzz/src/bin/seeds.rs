//! Writes the seed corpora of every fuzz target: `PYJIT_FUZZ_SEEDS=DIR seeds` fills
//! `DIR/<target>/`. Every seed is generated here (programs from the differential generator, their
//! IR, `.npy` files of every dtype, ARG spellings), none is copied from elsewhere.
//!
//! It is built like the targets (`cargo fuzz build` instruments every binary of the crate, and
//! the instrumentation needs libFuzzer's runtime to link), so it is a libFuzzer binary whose
//! `init` block does the work and exits before any fuzzing starts.

#![no_main]

use arbitrary::Unstructured;
use pyjit::runtime::{DType, Tensor};
use std::path::Path;

fn write(dir: &Path, name: &str, data: &[u8]) {
    std::fs::create_dir_all(dir).expect("create corpus dir");
    std::fs::write(dir.join(name), data).expect("write seed");
}

libfuzzer_sys::fuzz_target!(
    init: {
        // Exits either way; written as an `if` whose value is `()` so that the macro's code
        // after the block is not unreachable (a warning in every build).
        let code = match std::env::var_os("PYJIT_FUZZ_SEEDS") {
            Some(dir) => {
                write_seeds(Path::new(&dir));
                0
            }
            None => {
                eprintln!("usage: PYJIT_FUZZ_SEEDS=DIR seeds");
                64
            }
        };
        if code >= 0 {
            std::process::exit(code);
        }
    },
    |_data: &[u8]| {}
);

fn write_seeds(root: &Path) {
    for k in 0..48u64 {
        let raw = pyjit_fuzz::seed_bytes(k);
        write(&root.join("diff"), &format!("g{k}"), &raw);
        let Ok(p) = pyjit_fuzz::generate(&mut Unstructured::new(&raw)) else {
            continue;
        };
        write(
            &root.join("parse"),
            &format!("g{k}.py"),
            p.source.as_bytes(),
        );
        write(
            &root.join("script"),
            &format!("g{k}.py"),
            p.source.as_bytes(),
        );
        let file = pyjit::SourceFile::new("gen.py", p.source.clone());
        if let Ok(program) = pyjit::Program::compile(file) {
            let ir = pyjit_ir::print_module(program.module());
            write(&root.join("ir"), &format!("g{k}.ir"), ir.as_bytes());
        }
    }
    for (i, d) in DType::ALL.into_iter().enumerate() {
        for (j, shape) in [&[][..], &[0][..], &[3][..], &[2, 3][..]]
            .iter()
            .enumerate()
        {
            let n: usize = shape.iter().product();
            let t = Tensor::from_vec((0..n as i64).collect::<Vec<i64>>(), shape)
                .and_then(|t| t.to_dtype(d))
                .expect("tensor");
            let npy = pyjit::runtime::npy::write_npy_bytes(&t).expect("npy");
            write(&root.join("npy"), &format!("{i}_{j}.npy"), &npy);
        }
    }
    for (i, a) in [
        "3",
        "-9223372036854775808",
        "0x1f",
        "1_000",
        "2.5",
        "-inf",
        "nan",
        "1e-3",
        "true",
        "None",
        "x.npy",
        "[1, 2, 3]",
        "(1, [2.0, 3.5], none)",
        "[[1], [2, 3]]",
        "()",
        "[]",
        "f  x.npy [1, 2]  (3, [4, 5]) 2.0",
    ]
    .iter()
    .enumerate()
    {
        write(&root.join("args"), &format!("a{i}"), a.as_bytes());
    }
}
