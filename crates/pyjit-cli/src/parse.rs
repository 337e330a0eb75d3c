//! `pyjit parse FILE.py`: print the AST as an indented tree, or the rendered diagnostics.

use clap::Args;
use pyjit_syntax::{SourceFile, dump, parse_module, unparse};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct ParseArgs {
    /// The Python source file.
    pub file: PathBuf,
    /// Print the tree back as Python source instead of the AST dump.
    #[arg(long)]
    pub unparse: bool,
}

pub fn run(args: &ParseArgs) -> u8 {
    let text = match std::fs::read(&args.file) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                eprintln!(
                    "error: {} is not valid UTF-8 (first bad byte at offset {})",
                    args.file.display(),
                    e.utf8_error().valid_up_to()
                );
                return crate::EXIT_PROGRAM_ERROR;
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.file.display());
            return crate::EXIT_USAGE;
        }
    };
    let file = SourceFile::new(args.file.display().to_string(), text);
    match parse_module(&file) {
        Ok(module) => {
            let out = if args.unparse {
                unparse(&module)
            } else {
                dump(&module)
            };
            // A closed pipe (`pyjit parse f.py | head`) is not an error worth a panic.
            let _ = std::io::stdout().lock().write_all(out.as_bytes());
            0
        }
        Err(diags) => {
            for d in &diags {
                eprint!("{}", d.render(&file));
            }
            crate::EXIT_PROGRAM_ERROR
        }
    }
}
