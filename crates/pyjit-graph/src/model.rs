//! The graph of one IR function, as both renderers draw it: one node per op (and one per
//! parameter), one edge per use of a value (labelled with its type), and a cluster per region
//! (`if` with its `then`/`else`, `loop` with its `body`), nested as the regions are.

use pyjit_ir::{FuncId, Module, Op, OpKind, Region, Value, const_text};
use pyjit_syntax::Span;
use std::collections::HashMap;

/// Index of a node in [`Graph::nodes`].
pub type NodeId = usize;
/// Index of a cluster in [`Graph::clusters`].
pub type ClusterId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A function or region parameter.
    Param,
    /// An op.
    Op,
    /// A tracer's `guard` op (drawn highlighted).
    Guard,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub kind: NodeKind,
    /// The op's name (`tensor.mul.Scalar`, `const 2`, `if`) or the parameter's `name: type`.
    pub label: String,
    /// 1-based source line, when the module has a source file.
    pub line: Option<u32>,
    /// The source text the op came from (first line, shortened), when known.
    pub source: Option<String>,
    /// The full IR line, for tooltips.
    pub detail: String,
    pub cluster: ClusterId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterKind {
    /// The whole function.
    Function,
    /// An `if` op: its header node and the `then`/`else` clusters.
    If,
    Then,
    Else,
    /// A `loop` op: its header node and the `body` cluster.
    Loop,
    Body,
    /// A `fused` group (docs/fusion.md): its header node (the `fused` op) and, in the same
    /// box, the body's parameters and ops.
    Fused,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    Node(NodeId),
    Cluster(ClusterId),
}

#[derive(Clone, Debug)]
pub struct Cluster {
    pub kind: ClusterKind,
    pub label: String,
    pub parent: Option<ClusterId>,
    /// What the cluster holds, in program order.
    pub items: Vec<Item>,
    /// The node of the op owning the cluster's regions (`if`, `loop`), drawn first inside it.
    pub header: Option<NodeId>,
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    /// The value's type.
    pub label: String,
}

/// One function's graph.
#[derive(Clone, Debug)]
pub struct Graph {
    pub title: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// `clusters[0]` is the function.
    pub clusters: Vec<Cluster>,
}

/// Longest source snippet shown in a node.
const SNIPPET_CHARS: usize = 28;

impl Graph {
    /// The graph of function `id` of `module`, titled `title`.
    pub fn of_function(module: &Module, id: FuncId, title: impl Into<String>) -> Graph {
        let f = module.func(id);
        let names = pyjit_ir::printed_value_names(module, id);
        let mut b = Builder {
            module,
            f,
            names: &names,
            g: Graph {
                title: title.into(),
                nodes: Vec::new(),
                edges: Vec::new(),
                clusters: vec![Cluster {
                    kind: ClusterKind::Function,
                    label: String::new(),
                    parent: None,
                    items: Vec::new(),
                    header: None,
                }],
            },
            def_node: HashMap::new(),
            op_node: HashMap::new(),
        };
        b.g.clusters[0].label = b.g.title.clone();
        b.region(f.body, 0);
        b.edges();
        b.g
    }

    /// How many nodes are ops (guards included): one per attached op of the function.
    pub fn op_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| n.kind != NodeKind::Param)
            .count()
    }

    /// The item of cluster `level` that holds node `n` (the node itself, or the child cluster it
    /// is nested in), or `None` when `n` is outside `level`.
    pub(crate) fn item_at_level(&self, n: NodeId, level: ClusterId) -> Option<Item> {
        let mut c = self.nodes[n].cluster;
        if c == level {
            return Some(Item::Node(n));
        }
        loop {
            let parent = self.clusters[c].parent?;
            if parent == level {
                return Some(Item::Cluster(c));
            }
            c = parent;
        }
    }
}

struct Builder<'a> {
    module: &'a Module,
    f: &'a pyjit_ir::Function,
    names: &'a pyjit_ir::SecondaryMap<Value, Option<String>>,
    g: Graph,
    /// The node each value comes from (its op's, or its parameter's).
    def_node: HashMap<Value, NodeId>,
    /// The node of each op.
    op_node: HashMap<Op, NodeId>,
}

impl Builder<'_> {
    fn line(&self, span: Span) -> Option<u32> {
        let src = self.module.source.as_deref()?;
        Some(src.line_col(span.start).line)
    }

    fn snippet(&self, span: Span) -> Option<String> {
        let src = self.module.source.as_deref()?;
        if span.is_empty() || span.end as usize > src.text.len() {
            return None;
        }
        let text = src.text.get(span.range())?.lines().next()?.trim();
        if text.is_empty() {
            return None;
        }
        let mut s: String = text.chars().take(SNIPPET_CHARS).collect();
        if text.chars().count() > SNIPPET_CHARS {
            s.push('…');
        }
        Some(s)
    }

    fn value_name(&self, v: Value) -> String {
        self.names[v].clone().unwrap_or_else(|| format!("%{v}"))
    }

    fn add_node(&mut self, node: Node) -> NodeId {
        let id = self.g.nodes.len();
        let c = node.cluster;
        self.g.nodes.push(node);
        self.g.clusters[c].items.push(Item::Node(id));
        id
    }

    fn add_cluster(&mut self, kind: ClusterKind, label: String, parent: ClusterId) -> ClusterId {
        let id = self.g.clusters.len();
        self.g.clusters.push(Cluster {
            kind,
            label,
            parent: Some(parent),
            items: Vec::new(),
            header: None,
        });
        self.g.clusters[parent].items.push(Item::Cluster(id));
        id
    }

    fn params(&mut self, r: Region, cluster: ClusterId) {
        for &p in self.f.region_params(r) {
            let name = self.value_name(p);
            let node = self.add_node(Node {
                kind: NodeKind::Param,
                label: format!("{}: {}", name.trim_start_matches('%'), self.f.value_type(p)),
                line: None,
                source: None,
                detail: format!("parameter {name}: {}", self.f.value_type(p)),
                cluster,
            });
            self.def_node.insert(p, node);
        }
    }

    fn region(&mut self, r: Region, cluster: ClusterId) {
        self.params(r, cluster);
        for &op in self.f.region_ops(r) {
            self.op(op, cluster);
        }
    }

    fn op_label(&self, op: Op) -> String {
        let data = self.f.op(op);
        match &data.kind {
            OpKind::Const(c) => format!("const {}", const_text(c)),
            OpKind::Call(callee) => match self.module.funcs.get(*callee) {
                Some(g) => format!("call {}", g.name),
                None => "call ?".to_string(),
            },
            OpKind::TupleGet(i) => format!("tuple.get[{i}]"),
            OpKind::Raise(class) => format!("raise {class}"),
            OpKind::Check(class) => format!("check {class}"),
            OpKind::Guard { expected, .. } => format!("guard == {}", const_text(expected)),
            kind => kind.name(),
        }
    }

    fn op_detail(&self, op: Op) -> String {
        let data = self.f.op(op);
        let results: Vec<String> = data
            .results
            .iter()
            .map(|&v| format!("{}: {}", self.value_name(v), self.f.value_type(v)))
            .collect();
        let operands: Vec<String> = data.operands.iter().map(|&v| self.value_name(v)).collect();
        let mut s = String::new();
        if !results.is_empty() {
            s.push_str(&results.join(", "));
            s.push_str(" = ");
        }
        s.push_str(&self.op_label(op));
        s.push('(');
        s.push_str(&operands.join(", "));
        s.push(')');
        if let OpKind::Guard { message, .. } = &data.kind {
            s.push_str(": ");
            s.push_str(message);
        }
        if let (Some(src), false) = (self.module.source.as_deref(), data.span.is_empty()) {
            s.push_str("  # ");
            s.push_str(&src.location(data.span));
        }
        s
    }

    /// The node of an op that owns regions, drawn first in its cluster `outer`.
    fn add_header(&mut self, node: Node, outer: ClusterId) -> NodeId {
        let id = self.add_node(Node {
            cluster: outer,
            ..node
        });
        self.g.clusters[outer].header = Some(id);
        id
    }

    fn op(&mut self, op: Op, cluster: ClusterId) {
        let data = self.f.op(op);
        let line = self.line(data.span);
        let kind = match data.kind {
            OpKind::Guard { .. } => NodeKind::Guard,
            _ => NodeKind::Op,
        };
        let node = Node {
            kind,
            label: self.op_label(op),
            line,
            source: self.snippet(data.span),
            detail: self.op_detail(op),
            cluster,
        };
        let at = |what: &str| match line {
            Some(l) => format!("{what}  (line {l})"),
            None => what.to_string(),
        };
        let id = match data.kind {
            OpKind::If | OpKind::Loop if !data.regions.is_empty() => {
                let is_if = matches!(data.kind, OpKind::If);
                let outer = self.add_cluster(
                    if is_if {
                        ClusterKind::If
                    } else {
                        ClusterKind::Loop
                    },
                    at(if is_if { "if" } else { "loop" }),
                    cluster,
                );
                let id = self.add_header(node, outer);
                for (i, &r) in data.regions.iter().enumerate() {
                    let (kind, label) = match (is_if, i) {
                        (true, 0) => (ClusterKind::Then, "then"),
                        (true, _) => (ClusterKind::Else, "else"),
                        (false, _) => (ClusterKind::Body, "body"),
                    };
                    let inner = self.add_cluster(kind, label.to_string(), outer);
                    self.region(r, inner);
                }
                id
            }
            OpKind::Fused if !data.regions.is_empty() => {
                let outer = self.add_cluster(ClusterKind::Fused, at("fused"), cluster);
                let id = self.add_header(node, outer);
                for &r in &data.regions {
                    self.region(r, outer);
                }
                id
            }
            _ => self.add_node(node),
        };
        self.op_node.insert(op, id);
        for &v in &data.results {
            self.def_node.insert(v, id);
        }
    }

    /// One edge per operand of every op, once every node exists.
    fn edges(&mut self) {
        let mut uses: Vec<(Value, Op)> = Vec::new();
        self.f.walk(&mut |op| {
            for &v in &self.f.op(op).operands {
                uses.push((v, op));
            }
        });
        for (v, op) in uses {
            // Invalid IR (a use without a visible definition) simply has no edge.
            let (Some(&from), Some(&to)) = (self.def_node.get(&v), self.op_node.get(&op)) else {
                continue;
            };
            self.g.edges.push(Edge {
                from,
                to,
                label: self.f.value_type(v).to_string(),
            });
        }
    }
}
