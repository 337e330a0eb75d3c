//! Prints the scripted IR of a file (or its diagnostics): `cargo run -p pyjit-script --example
//! script_dump -- FILE.py...`.

fn main() {
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let file = pyjit_syntax::SourceFile::new(path.clone(), text);
        let parsed = match pyjit_syntax::parse_module(&file) {
            Ok(m) => m,
            Err(ds) => {
                for d in ds {
                    println!("{}", d.render(&file));
                }
                continue;
            }
        };
        // PYJIT_NO_VERIFY=1 prints the IR even when the verifier rejects it.
        let r = if std::env::var_os("PYJIT_NO_VERIFY").is_some() {
            pyjit_script::script_module_unverified(&file, &parsed)
        } else {
            pyjit_script::script_module(&file, &parsed)
        };
        match r {
            Ok(m) => println!("{}", pyjit_ir::print_module(&m)),
            Err(ds) => {
                for d in ds {
                    println!("{}", d.render(&file));
                }
            }
        }
    }
}
