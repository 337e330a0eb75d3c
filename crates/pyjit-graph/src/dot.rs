//! Graphviz DOT: `dot -Tsvg g.dot -o g.svg` draws what [`crate::svg`] draws, with Graphviz's
//! layout. Regions are `cluster_` subgraphs (nested as the regions are), guards are filled orange,
//! parameters are ellipses; several graphs (`--compare`) are clusters of one digraph, side by side.

use crate::model::{ClusterId, ClusterKind, Graph, Item, NodeKind};
use std::fmt::Write;

/// A DOT string literal.
fn quote(s: &str) -> String {
    // DOT has no escapes for the other control characters: they are dropped.
    pyjit_syntax::quote::double_quoted(s, |_, _| {})
}

/// The DOT text of `graphs` (one, or several side by side).
pub fn to_dot(graphs: &[Graph]) -> String {
    let mut out = String::new();
    let name = graphs
        .iter()
        .map(|g| g.title.as_str())
        .collect::<Vec<_>>()
        .join(" | ");
    let _ = writeln!(out, "digraph {} {{", quote(&name));
    out.push_str("  rankdir=TB;\n  newrank=true;\n  compound=true;\n");
    out.push_str("  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", fontname=\"monospace\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"monospace\", fontsize=9, color=\"#4a6a9a\"];\n");
    for (gi, g) in graphs.iter().enumerate() {
        let mut w = Writer {
            g,
            prefix: format!("g{gi}_"),
            out: &mut out,
        };
        w.cluster(0, 1);
    }
    for (gi, g) in graphs.iter().enumerate() {
        for e in &g.edges {
            let _ = writeln!(
                out,
                "  g{gi}_n{} -> g{gi}_n{} [label={}];",
                e.from,
                e.to,
                quote(&e.label)
            );
        }
    }
    out.push_str("}\n");
    out
}

struct Writer<'a> {
    g: &'a Graph,
    prefix: String,
    out: &'a mut String,
}

impl Writer<'_> {
    fn indent(&mut self, depth: usize) {
        self.out.extend(std::iter::repeat_n("  ", depth));
    }

    fn cluster(&mut self, c: ClusterId, depth: usize) {
        let cl = &self.g.clusters[c];
        let (style, color) = match cl.kind {
            ClusterKind::Function => ("rounded", "#888888"),
            ClusterKind::If => ("rounded,filled", "#fff7e0"),
            ClusterKind::Then | ClusterKind::Else => ("dashed,rounded,filled", "#ffffff"),
            ClusterKind::Loop => ("rounded,filled", "#e8f5e9"),
            ClusterKind::Body => ("dashed,rounded,filled", "#ffffff"),
            ClusterKind::Fused => ("rounded,filled", "#e3f2fd"),
        };
        self.indent(depth);
        let _ = writeln!(self.out, "subgraph cluster_{}c{c} {{", self.prefix);
        self.indent(depth + 1);
        let _ = writeln!(
            self.out,
            "label={}; labeljust=l; style={}; fillcolor={}; color=\"#888888\";",
            quote(&cl.label),
            quote(style),
            quote(color)
        );
        for &item in &cl.items {
            match item {
                Item::Node(n) => self.node(n, depth + 1),
                Item::Cluster(k) => self.cluster(k, depth + 1),
            }
        }
        self.indent(depth);
        self.out.push_str("}\n");
    }

    fn node(&mut self, n: usize, depth: usize) {
        let node = &self.g.nodes[n];
        let mut label = node.label.clone();
        if let Some(line) = node.line {
            let _ = write!(label, "\nL{line}");
            if let Some(s) = &node.source {
                let _ = write!(label, ": {s}");
            }
        }
        let attrs = match node.kind {
            NodeKind::Param => ", shape=ellipse, style=filled, fillcolor=\"#f4f4f4\"",
            NodeKind::Guard => {
                ", style=\"rounded,filled,bold\", fillcolor=\"#ffcc80\", color=\"#e65100\""
            }
            NodeKind::Op => "",
        };
        self.indent(depth);
        let _ = writeln!(
            self.out,
            "{}n{n} [label={}, tooltip={}{attrs}];",
            self.prefix,
            quote(&label),
            quote(&node.detail)
        );
    }
}
