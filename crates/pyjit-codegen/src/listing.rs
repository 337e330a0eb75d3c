//! The listings of `--emit clif` and `--emit asm`, mapped back to the program: callees by name
//! (host functions of the runtime, the module's own functions) instead of Cranelift's
//! `u0:13`, and `file.py:line` markers before the code of each source line. Every instruction
//! carries the index of the IR op it was lowered from as its Cranelift source location
//! (`lower.rs`), which is how the markers find their line.
//!
//! The machine code is disassembled with iced-x86 from the finalized code in memory (relocations
//! applied), so a call into the runtime reads `movabs rax, pjn_op` / `call rax`.

use pyjit_ir::{EntityRef, Function, Op};
use pyjit_syntax::SourceFile;
use std::collections::HashMap;
use std::fmt::Write;

/// The source line op `op_index` of `f` came from: `(line, "file.py:LINE: text")`.
fn marker(f: &Function, src: Option<&SourceFile>, op_index: u32) -> Option<(u32, String)> {
    let src = src?;
    let op = Op::new(op_index as usize);
    let data = f.ops.get(op)?;
    if data.span.is_empty() && data.span.start == 0 {
        return None;
    }
    let line = src.line_col(data.span.start).line;
    Some((
        line,
        format!("{}:{line}: {}", src.name, src.line_text(line).trim()),
    ))
}

/// The IR op name of op `op_index` of `f` (`tensor.sum`), for comments on calls.
fn op_name(f: &Function, op_index: u32) -> Option<String> {
    let data = f.ops.get(Op::new(op_index as usize))?;
    Some(data.kind.name())
}

/// Cranelift's text of function `f`, with the callees named (`callees`: Cranelift function
/// index → name), the function itself named `name`, and a `; file.py:line: source` comment
/// before the instructions of each new source line.
pub(crate) fn annotate_clif(
    text: &str,
    name: &str,
    f: &Function,
    src: Option<&SourceFile>,
    callees: &HashMap<u32, String>,
) -> String {
    // `fnK = u0:M sigK`: which name each `fnK` stands for.
    let mut fn_refs: HashMap<String, String> = HashMap::new();
    let mut out = String::new();
    let mut last_line = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("function ") {
            // `function u0:3(i64, ...) -> ... system_v {`
            let args = rest.find('(').map(|i| &rest[i..]).unwrap_or("");
            let _ = writeln!(out, "function %\"{name}\"{args}");
            continue;
        }
        // The source location Cranelift writes first (`@0005 v3 = ...`): the op's index.
        let (loc, body) = match line.strip_prefix('@') {
            Some(rest) => {
                let (hex, tail) = rest.split_once(' ').unwrap_or((rest, ""));
                (u32::from_str_radix(hex, 16).ok(), tail)
            }
            None => (None, line),
        };
        let t = body.trim();
        if t.is_empty() || t == "}" {
            out.push_str(t);
            out.push('\n');
            continue;
        }
        if t.starts_with("block") && t.ends_with(':') {
            out.push_str(t);
            out.push('\n');
            continue;
        }
        if let Some((lhs, rhs)) = t.split_once(" = ")
            && lhs.starts_with("fn")
            && lhs[2..].chars().all(|c| c.is_ascii_digit())
        {
            // A function declaration of the preamble: `fnK = u0:M sigK`.
            let mut words: Vec<String> = rhs.split(' ').map(str::to_string).collect();
            for w in &mut words {
                if let Some(idx) = w.strip_prefix("u0:").and_then(|i| i.parse::<u32>().ok())
                    && let Some(callee) = callees.get(&idx)
                {
                    fn_refs.insert(lhs.to_string(), callee.clone());
                    *w = format!("%\"{callee}\"");
                }
            }
            let _ = writeln!(out, "    {lhs} = {}", words.join(" "));
            continue;
        }
        if let Some(op) = loc
            && let Some((l, text)) = marker(f, src, op)
            && last_line != Some(l)
        {
            last_line = Some(l);
            let _ = writeln!(out, "    ; {text}");
        }
        out.push_str("    ");
        out.push_str(t);
        if let Some(i) = t.find("call fn") {
            let r: String = t[i + 5..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            match (fn_refs.get(&r), loc.and_then(|o| op_name(f, o))) {
                // The generic tensor-op entry point: say which op of the program it runs.
                (Some(callee), Some(op)) if callee == "pjn_op" => {
                    let _ = write!(out, "  ; {callee}: {op}");
                }
                (Some(callee), _) => {
                    let _ = write!(out, "  ; {callee}");
                }
                _ => {}
            }
        }
        out.push('\n');
    }
    out
}

/// What the disassembler needs of one compiled function.
pub(crate) struct Code {
    pub name: String,
    /// Where the finalized code starts, and its bytes.
    pub address: u64,
    pub bytes: Vec<u8>,
    /// `(start, end, op index)` of each run of instructions lowered from one op.
    pub srclocs: Vec<(u32, u32, u32)>,
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use iced_x86::{
        Decoder, DecoderOptions, FlowControl, Formatter, Instruction, IntelFormatter,
        SymbolResolver, SymbolResult,
    };

    struct Resolver {
        symbols: HashMap<u64, String>,
        start: u64,
        len: u64,
    }

    impl SymbolResolver for Resolver {
        fn symbol(
            &mut self,
            _instruction: &Instruction,
            _operand: u32,
            _instruction_operand: Option<u32>,
            address: u64,
            _address_size: u32,
        ) -> Option<SymbolResult<'_>> {
            if let Some(name) = self.symbols.get(&address) {
                return Some(SymbolResult::with_str(address, name.as_str()));
            }
            if address >= self.start && address < self.start + self.len {
                return Some(SymbolResult::with_string(
                    address,
                    format!(".L{:x}", address - self.start),
                ));
            }
            None
        }
    }

    /// Intel-syntax disassembly of `code`, with `symbols` (address → name) for call targets,
    /// `.Lx` labels for branch targets, and `# file.py:line: source` markers.
    pub(crate) fn disassemble(
        code: &Code,
        f: &Function,
        src: Option<&SourceFile>,
        symbols: &HashMap<u64, String>,
    ) -> String {
        let mut decoder = Decoder::with_ip(64, &code.bytes, code.address, DecoderOptions::NONE);
        let mut insts = Vec::new();
        let mut targets = std::collections::BTreeSet::new();
        let srcloc_end = code.srclocs.iter().map(|s| s.1).max().unwrap_or(0) as u64;
        let mut code_end = srcloc_end;
        while decoder.can_decode() {
            let inst = decoder.decode();
            let off = inst.ip() - code.address;
            if matches!(
                inst.flow_control(),
                FlowControl::ConditionalBranch | FlowControl::UnconditionalBranch
            ) {
                let t = inst.near_branch_target();
                if t >= code.address && t < code.address + code.bytes.len() as u64 {
                    targets.insert(t - code.address);
                    code_end = code_end.max(t - code.address + 1);
                }
            }
            let end = off + inst.len() as u64;
            insts.push(inst);
            // Cranelift puts the constants after the last block: stop at the last instruction
            // that ends the code (nothing jumps past it, no op's code lies beyond).
            if end >= code_end
                && matches!(
                    inst.flow_control(),
                    FlowControl::Return | FlowControl::UnconditionalBranch | FlowControl::Exception
                )
            {
                break;
            }
        }
        let mut formatter = IntelFormatter::with_options(
            Some(Box::new(Resolver {
                symbols: symbols.clone(),
                start: code.address,
                len: code.bytes.len() as u64,
            })),
            None,
        );
        formatter.options_mut().set_first_operand_char_index(8);
        formatter
            .options_mut()
            .set_space_after_operand_separator(true);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}:  # {} bytes of x86-64 code",
            code.name,
            code.bytes.len()
        );
        let mut last_line = None;
        let mut text = String::new();
        let mut decoded_end = 0;
        // The symbol each register was last loaded with (`mov r8, pjn_op`), to name the target
        // of `call r8`.
        let mut loaded: HashMap<iced_x86::Register, u64> = HashMap::new();
        for inst in &insts {
            let off = (inst.ip() - code.address) as u32;
            let op = code
                .srclocs
                .iter()
                .find(|s| s.0 <= off && off < s.1)
                .map(|s| s.2);
            if let Some(op) = op
                && let Some((l, m)) = marker(f, src, op)
                && last_line != Some(l)
            {
                last_line = Some(l);
                let _ = writeln!(out, "    # {m}");
            }
            if targets.contains(&(off as u64)) {
                let _ = writeln!(out, ".L{off:x}:");
            }
            text.clear();
            formatter.format(inst, &mut text);
            let _ = write!(out, "  {off:5x}:  {text}");
            if inst.code() == iced_x86::Code::Mov_r64_imm64 {
                loaded.insert(inst.op0_register(), inst.immediate64());
            }
            if inst.flow_control() == FlowControl::IndirectCall
                && inst.op0_kind() == iced_x86::OpKind::Register
                && let Some(target) = loaded.get(&inst.op0_register())
                && let Some(symbol) = symbols.get(target)
            {
                // The generic tensor-op entry point: say which op of the program it runs.
                match op.and_then(|o| op_name(f, o)) {
                    Some(name) if symbol == "pjn_op" => {
                        let _ = write!(out, "  # {symbol}: {name}");
                    }
                    _ => {
                        let _ = write!(out, "  # {symbol}");
                    }
                }
            }
            out.push('\n');
            decoded_end = off as usize + inst.len();
        }
        if decoded_end < code.bytes.len() {
            let _ = writeln!(
                out,
                "  {decoded_end:5x}:  # {} bytes of constants",
                code.bytes.len() - decoded_end
            );
        }
        out
    }
}

/// The disassembly of `code` (see [`x86::disassemble`]); on other hosts, `None` (the caller
/// falls back to Cranelift's own listing).
pub(crate) fn disassemble(
    code: &Code,
    f: &Function,
    src: Option<&SourceFile>,
    symbols: &HashMap<u64, String>,
) -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        Some(x86::disassemble(code, f, src, symbols))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (code, f, src, symbols);
        None
    }
}
