//! Prints the Cranelift IR or the machine code of a Python file's functions:
//! `cargo run -p pyjit-codegen --example emit -- FILE.py [clif|asm]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(path), what) = (args.next(), args.next()) else {
        eprintln!("usage: emit FILE.py [clif|asm]");
        std::process::exit(64);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let file = pyjit_syntax::SourceFile::new(path.clone(), text);
    let module = match pyjit_script::script_source(&file) {
        Ok(m) => m,
        Err(diags) => {
            for d in diags {
                eprintln!("{}", d.render(&file));
            }
            std::process::exit(1);
        }
    };
    let listing = if what.as_deref() == Some("asm") {
        pyjit_codegen::emit_asm(&module)
    } else {
        pyjit_codegen::emit_clif(&module)
    };
    match listing {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
