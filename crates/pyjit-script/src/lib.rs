//! Scripting: AST to IR.
