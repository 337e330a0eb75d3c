//! The pictures as data: the SVG is well-formed XML with one `node op` group per op of the
//! function, one cluster per region, and every edge's type written; the DOT has the same nodes
//! and clusters.

use pyjit_graph::{Graph, to_dot, to_svg};
use pyjit_syntax::SourceFile;

const SRC: &str = "\
def f(x: Tensor, t: float, n: int) -> Tensor:
    if x.sum() > t:
        y = x * 2
    else:
        y = x + 1
    for i in range(n):
        if i % 2 == 0:
            y = y - 1
    return y
";

fn graph() -> (pyjit_ir::Module, Graph) {
    let file = SourceFile::new("f.py", SRC);
    let ast = pyjit_syntax::parse_module(&file).expect("parses");
    let module = pyjit_script::script_module(&file, &ast).expect("scripts");
    let id = module.function_by_name("f").unwrap();
    let g = Graph::of_function(&module, id, "scripted: f");
    (module, g)
}

fn op_count(module: &pyjit_ir::Module) -> usize {
    let f = module.func(module.function_by_name("f").unwrap());
    f.all_ops().len()
}

fn has_class(n: &roxmltree::Node, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|w| w == class))
}

#[test]
fn svg_is_xml_with_one_node_per_op() {
    let (module, g) = graph();
    let svg = to_svg(std::slice::from_ref(&g)).expect("lays out");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let ops: Vec<_> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "g" && has_class(n, "op"))
        .collect();
    assert_eq!(ops.len(), op_count(&module));
    assert_eq!(ops.len(), g.op_count());
    // The parameters x, t, n, the loop's counter and its carried value.
    let params = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "g" && has_class(n, "param"))
        .count();
    assert!(params >= 3, "{params}");
    // One cluster per region: function, 2 ifs (+ then/else each), 1 loop (+ body).
    let clusters: Vec<String> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "g" && has_class(n, "cluster"))
        .map(|n| n.attribute("class").unwrap().to_string())
        .collect();
    for kind in ["function", "if", "then", "else", "loop", "body"] {
        assert!(
            clusters.iter().any(|c| c.ends_with(kind)),
            "{kind}: {clusters:?}"
        );
    }
    assert_eq!(clusters.len(), 1 + 3 + 3 + 2, "{clusters:?}");
    // Every op node says its source line; the mul is on line 3.
    let mul = ops
        .iter()
        .find(|n| n.attribute("data-op") == Some("tensor.mul.Scalar"))
        .expect("the mul");
    assert_eq!(mul.attribute("data-line"), Some("3"));
    // The edges carry the types.
    let labels: Vec<&str> = doc
        .descendants()
        .filter(|n| has_class(n, "edge-label"))
        .filter_map(|n| n.text())
        .collect();
    assert!(labels.contains(&"Tensor"), "{labels:?}");
    assert!(labels.contains(&"bool"), "{labels:?}");
    // Nodes do not overlap.
    let rects: Vec<(f64, f64, f64, f64)> = doc
        .descendants()
        .filter(|n| {
            n.tag_name().name() == "g"
                && n.attribute("class").is_some_and(|c| c.starts_with("node"))
        })
        .map(|n| {
            let r = n
                .children()
                .find(|c| c.tag_name().name() == "rect")
                .unwrap();
            let v = |a| r.attribute(a).unwrap().parse::<f64>().unwrap();
            (v("x"), v("y"), v("width"), v("height"))
        })
        .collect();
    for (i, a) in rects.iter().enumerate() {
        for b in &rects[i + 1..] {
            let apart =
                a.0 + a.2 <= b.0 || b.0 + b.2 <= a.0 || a.1 + a.3 <= b.1 || b.1 + b.3 <= a.1;
            assert!(apart, "overlapping nodes {a:?} {b:?}");
        }
    }
}

#[test]
fn dot_has_the_same_nodes_and_nested_clusters() {
    let (module, g) = graph();
    let dot = to_dot(std::slice::from_ref(&g));
    assert!(dot.starts_with("digraph "), "{dot}");
    let nodes = dot
        .lines()
        .filter(|l| l.trim_start().starts_with("g0_n") && !l.contains("->"))
        .count();
    assert_eq!(nodes, g.nodes.len());
    assert_eq!(g.op_count(), op_count(&module));
    assert_eq!(dot.matches("subgraph cluster_").count(), 9);
    assert_eq!(dot.matches(" -> ").count(), g.edges.len());
    // Balanced braces: the clusters nest.
    assert_eq!(dot.matches('{').count(), dot.matches('}').count());
}

#[test]
fn side_by_side() {
    let (_, g) = graph();
    let svg = to_svg(&[g.clone(), g.clone()]).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let graphs = doc.descendants().filter(|n| has_class(n, "graph")).count();
    assert_eq!(graphs, 2);
}

/// A function with a fused group (as `fuse` makes it: docs/fusion.md).
const FUSED_IR: &str = "\
func @chain(%x: Tensor[float32, 1], %y: Tensor[float32, 1]) -> Tensor[float32, 1] {
  %0: Tensor[float32, 1] = fused(%x, %y) body(%1: Tensor[float32, 1], %2: Tensor[float32, 1]) {
    %3: float = const 2.0
    %4: Tensor[float32, 1] = tensor.mul.Scalar(%1, %3)
    %5: int = const 1
    %6: Tensor[float32, 1] = tensor.add.Tensor(%4, %2, %5)
    %7: Tensor[float32, 1] = tensor.tanh(%6)
    %8: Tensor[float32, 1] = tensor.sigmoid(%2)
    %9: Tensor[float32, 1] = tensor.mul.Tensor(%7, %8)
    yield %9
  }
  %10: Tensor[float32, 1] = tensor.neg(%0)
  return %10
}
";

fn fused_graph() -> Graph {
    let module = pyjit_ir::parse_module(FUSED_IR).expect("parses");
    let id = module.function_by_name("chain").unwrap();
    Graph::of_function(&module, id, "fused: chain")
}

fn rect_of(n: &roxmltree::Node) -> (f64, f64, f64, f64) {
    let r = n
        .children()
        .find(|c| c.tag_name().name() == "rect")
        .expect("a rect");
    let v = |a| r.attribute(a).unwrap().parse::<f64>().unwrap();
    (v("x"), v("y"), v("width"), v("height"))
}

#[test]
fn a_fused_group_is_a_box_holding_its_body() {
    let g = fused_graph();
    let svg = to_svg(std::slice::from_ref(&g)).expect("lays out");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let boxes: Vec<_> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "g" && has_class(n, "cluster") && has_class(n, "fused"))
        .collect();
    assert_eq!(boxes.len(), 1);
    let (bx, by, bw, bh) = rect_of(&boxes[0]);
    // Which nodes (op or parameter) the box's rectangle holds.
    let mut inside: Vec<String> = Vec::new();
    let mut outside: Vec<String> = Vec::new();
    for n in doc
        .descendants()
        .filter(|n| n.tag_name().name() == "g" && (has_class(n, "op") || has_class(n, "param")))
    {
        let (x, y, w, h) = rect_of(&n);
        let name = match n.attribute("data-op") {
            _ if has_class(&n, "param") => "param".to_string(),
            Some(o) if o.starts_with("const ") => "const".to_string(),
            o => o.unwrap_or_default().to_string(),
        };
        if x >= bx && y >= by && x + w <= bx + bw && y + h <= by + bh {
            inside.push(name);
        } else {
            outside.push(name);
        }
    }
    inside.sort();
    outside.sort();
    // The `fused` op itself, the body's two parameters, its two constants, five tensor ops
    // and the yield; outside: the function's parameters, the neg and the return.
    assert_eq!(
        inside,
        [
            "const",
            "const",
            "fused",
            "param",
            "param",
            "tensor.add.Tensor",
            "tensor.mul.Scalar",
            "tensor.mul.Tensor",
            "tensor.sigmoid",
            "tensor.tanh",
            "yield"
        ],
        "outside: {outside:?}"
    );
    assert_eq!(outside, ["param", "param", "return", "tensor.neg"]);
    // The group's input edges enter the box: x and y feed the `fused` op.
    let labels = doc
        .descendants()
        .filter(|n| has_class(n, "edge-label"))
        .count();
    assert!(labels >= 1);
}

#[test]
fn a_fused_group_is_a_dot_subgraph() {
    let g = fused_graph();
    let dot = to_dot(std::slice::from_ref(&g));
    // The function's cluster and the group's, nested.
    assert_eq!(dot.matches("subgraph cluster_").count(), 2, "{dot}");
    let start = dot.find("label=\"fused\"").expect("the group's label");
    let body = &dot[start..];
    let end = body.find('}').expect("the group's cluster closes");
    let nodes: Vec<&str> = body[..end]
        .lines()
        .filter(|l| l.contains(" [label="))
        .collect();
    // The header, two parameters, two constants, five tensor ops, the yield.
    assert_eq!(nodes.len(), 11, "{nodes:#?}");
    assert!(!nodes.iter().any(|l| l.contains("neg")), "{nodes:#?}");
    assert_eq!(dot.matches('{').count(), dot.matches('}').count());
}
