//! `pyjit compile FILE.py [-f NAME] --save F.pyjit [ARG]...`: save a scripted function as a
//! `.pyjit` archive (`pyjit::archive`: its source, its scripted IR and the signatures of the
//! ARGs, compiled to check that they compile), loadable by `pyjit run F.pyjit`, `pyjit.load` in
//! Python and `pyjit::api::Function::load` in Rust.

use crate::compile::CompileArgs;
use pyjit::api::{CompileOptions, Error, Function, Source, Value};
use std::path::Path;

/// Saves the function `args` names to `path`; the exit status.
pub fn save(args: &CompileArgs, path: &Path) -> u8 {
    let file = match crate::run::read_source(&args.target.file) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let report = |e: &Error| {
        eprintln!("{e}");
        match e {
            Error::Compile(_) | Error::Archive(_) => crate::EXIT_PROGRAM_ERROR,
            Error::Run { .. } => crate::run::EXIT_RUNTIME_ERROR,
            _ => crate::EXIT_USAGE,
        }
    };
    let name = match (&args.target.function, pyjit::Program::compile(file.clone())) {
        (Some(n), _) => n.clone(),
        (None, Ok(p)) => match crate::usage(pyjit::run::pick_function(&p, None)) {
            Ok(n) => n,
            Err(code) => return code,
        },
        (None, Err(_)) => String::new(),
    };
    let source = Source::new(file.name.clone(), file.text.clone());
    // `--fastmath` changes the scripted IR (the archive records it); the other optimization
    // flags do not (each load optimizes again).
    let options = CompileOptions {
        fastmath: args.opt.fastmath,
        ..CompileOptions::default()
    };
    let f = match Function::script(&source, &name, &options) {
        Ok(f) => f,
        Err(e) => return report(&e),
    };
    if !args.target.args.is_empty() {
        let values = match args
            .target
            .args
            .iter()
            .map(|w| Value::from_arg(w, Path::new(".")))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(v) => v,
            Err(e) => return report(&e),
        };
        if let Err(e) = f.compile_for(values, Vec::new()) {
            return report(&e);
        }
    }
    let bytes = match f.save() {
        Ok(b) => b,
        Err(e) => return report(&e),
    };
    if let Err(e) = std::fs::write(path, bytes) {
        eprintln!("error: cannot write {}: {e}", path.display());
        return crate::EXIT_USAGE;
    }
    eprintln!(
        "saved {name}() with {} signature(s) to {}",
        f.signatures().len(),
        path.display()
    );
    0
}
