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
        match pyjit_script::script_source(&file) {
            Ok(m) => println!("{}", pyjit_ir::print_module(&m)),
            Err(ds) => {
                for d in ds {
                    println!("{}", d.render(&file));
                }
            }
        }
    }
}
