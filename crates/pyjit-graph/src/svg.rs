//! SVG drawn in-process. layout-rs lays out one cluster's items at a time (ranking, crossing
//! minimisation, placement, routing of the edges between two nodes of the same region, with their
//! labels); a nested cluster takes part in its parent's layout as one box of the size its own
//! layout needs, so regions nest without overlapping. Edges that enter or leave a cluster are
//! drawn afterwards as curves between the absolute positions of their nodes.
//!
//! Every op is one `<g class="node op">` (guards `node op guard`, parameters `node param`), every
//! cluster one `<g class="cluster KIND">`, every edge one `<g class="edge">`, so that tests and
//! scripts can read the picture as data.

use crate::model::{ClusterId, ClusterKind, Graph, Item, NodeId, NodeKind};
use layout::core::base::Orientation;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write;

const FONT: f64 = 11.0;
const CHAR_W: f64 = 6.7;
const LINE_H: f64 = 14.0;
const EDGE_FONT: usize = 9;
const PAD: f64 = 10.0;
const LABEL_H: f64 = 18.0;
const GAP: f64 = 40.0;

#[derive(Clone, Copy, Debug)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn moved(self, dx: f64, dy: f64) -> Rect {
        Rect {
            x: self.x + dx,
            y: self.y + dy,
            ..self
        }
    }
}

/// A routed edge between two nodes of one region: a cubic path in layout-rs's format
/// (`M p0 C c0, c1 p1 S c p …`) and the edge's label position.
#[derive(Clone, Debug)]
struct Path {
    points: Vec<(Point, Point)>,
}

/// What one cluster's layout produced, in its own coordinates (origin top-left).
#[derive(Default)]
struct Laid {
    w: f64,
    h: f64,
    nodes: Vec<(NodeId, Rect)>,
    frames: Vec<(ClusterId, Rect)>,
    paths: Vec<Path>,
    labels: Vec<(Point, String)>,
}

impl Laid {
    fn translate(&mut self, dx: f64, dy: f64) {
        for (_, r) in self.nodes.iter_mut().chain(self.frames.iter_mut()) {
            *r = r.moved(dx, dy);
        }
        let d = Point::new(dx, dy);
        for p in &mut self.paths {
            for (a, b) in &mut p.points {
                *a = a.add(d);
                *b = b.add(d);
            }
        }
        for (p, _) in &mut self.labels {
            *p = p.add(d);
        }
    }

    fn absorb(&mut self, mut other: Laid, dx: f64, dy: f64) {
        other.translate(dx, dy);
        self.nodes.extend(other.nodes);
        self.frames.extend(other.frames);
        self.paths.extend(other.paths);
        self.labels.extend(other.labels);
    }
}

/// Keeps what layout-rs draws of the edges (paths and label texts); the nodes are drawn by us.
#[derive(Default)]
struct Recorder {
    paths: Vec<Path>,
    labels: Vec<(Point, String)>,
}

impl RenderBackend for Recorder {
    fn draw_rect(
        &mut self,
        _: Point,
        _: Point,
        _: &StyleAttr,
        _: Option<String>,
        _: Option<usize>,
    ) {
    }
    fn draw_line(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}
    fn draw_circle(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}
    fn draw_text(&mut self, xy: Point, text: &str, _: &StyleAttr) {
        if !text.is_empty() {
            self.labels.push((xy, text.to_string()));
        }
    }
    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        _: bool,
        _: (bool, bool),
        _: &StyleAttr,
        _: Option<String>,
        _: &str,
    ) {
        if path.len() >= 2 {
            self.paths.push(Path {
                points: path.to_vec(),
            });
        }
    }
    fn create_clip(&mut self, _: Point, _: Point, _: usize) -> ClipHandle {
        0
    }
}

/// The lines of text a node shows.
fn node_lines(g: &Graph, n: NodeId) -> Vec<String> {
    let node = &g.nodes[n];
    let mut lines = vec![node.label.clone()];
    if let Some(line) = node.line {
        lines.push(match &node.source {
            Some(s) => format!("L{line}: {s}"),
            None => format!("L{line}"),
        });
    }
    lines
}

fn node_size(g: &Graph, n: NodeId) -> (f64, f64) {
    let lines = node_lines(g, n);
    let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    (
        chars as f64 * CHAR_W + 2.0 * PAD,
        lines.len() as f64 * LINE_H + PAD,
    )
}

fn edge_look() -> StyleAttr {
    StyleAttr::new(
        layout::core::color::Color::new(0x4a6a9aff),
        1,
        None,
        0,
        EDGE_FONT,
    )
}

/// Lays out cluster `c` with its frame and label.
fn lay_cluster(g: &Graph, c: ClusterId, drawn: &mut HashSet<usize>) -> Laid {
    let mut inner = lay_items(g, c, drawn);
    let label_w = g.clusters[c].label.chars().count() as f64 * CHAR_W + 2.0 * PAD;
    let w = (inner.w + 2.0 * PAD).max(label_w);
    let h = inner.h + 2.0 * PAD + LABEL_H;
    let mut out = Laid {
        w,
        h,
        frames: vec![(
            c,
            Rect {
                x: 0.0,
                y: 0.0,
                w,
                h,
            },
        )],
        ..Laid::default()
    };
    let dx = (w - inner.w) / 2.0;
    inner.translate(0.0, 0.0);
    out.absorb(inner, dx, PAD + LABEL_H);
    out
}

/// Lays out the items of cluster `c` (without its frame). `drawn` collects the edges layout-rs
/// routed (both ends directly in one cluster); the others are drawn by [`to_svg`].
fn lay_items(g: &Graph, c: ClusterId, drawn: &mut HashSet<usize>) -> Laid {
    let items = &g.clusters[c].items;
    if items.is_empty() {
        return Laid {
            w: 40.0,
            h: 20.0,
            ..Laid::default()
        };
    }
    let mut children: HashMap<ClusterId, Laid> = HashMap::new();
    let mut vg = VisualGraph::new(Orientation::TopToBottom);
    let mut handles = Vec::with_capacity(items.len());
    let mut index: HashMap<Item, usize> = HashMap::new();
    let invisible = StyleAttr::new(
        layout::core::color::Color::transparent(),
        0,
        None,
        0,
        EDGE_FONT,
    );
    for (i, &item) in items.iter().enumerate() {
        let (w, h) = match item {
            Item::Node(n) => node_size(g, n),
            Item::Cluster(k) => {
                let laid = lay_cluster(g, k, drawn);
                let size = (laid.w, laid.h);
                children.insert(k, laid);
                size
            }
        };
        let e = Element::create(
            ShapeKind::new_box(""),
            invisible.clone(),
            Orientation::TopToBottom,
            Point::new(w, h),
        );
        handles.push(vg.add_node(e));
        index.insert(item, i);
    }
    // Edges between the items: labelled arrows between two nodes, invisible ranking edges when
    // a cluster is an end (its real edge is drawn later, to the node inside).
    let mut labelled: BTreeMap<(usize, usize), (Vec<usize>, Vec<String>)> = BTreeMap::new();
    let mut ranking: HashSet<(usize, usize)> = HashSet::new();
    for (ei, e) in g.edges.iter().enumerate() {
        let (Some(a), Some(b)) = (g.item_at_level(e.from, c), g.item_at_level(e.to, c)) else {
            continue;
        };
        if a == b {
            continue;
        }
        let (ia, ib) = (index[&a], index[&b]);
        match (a, b) {
            (Item::Node(_), Item::Node(_)) => {
                let entry = labelled.entry((ia, ib)).or_default();
                entry.0.push(ei);
                if !entry.1.contains(&e.label) {
                    entry.1.push(e.label.clone());
                }
            }
            _ => {
                ranking.insert((ia, ib));
            }
        }
    }
    // The header of an `if`/`loop` comes before its regions.
    if let Some(h) = g.clusters[c].header {
        let ih = index[&Item::Node(h)];
        for (i, item) in items.iter().enumerate() {
            if matches!(item, Item::Cluster(_)) {
                ranking.insert((ih, i));
            }
        }
    }
    for (&(a, b), (edges, labels)) in &labelled {
        let arrow = Arrow::new(
            LineEndKind::None,
            LineEndKind::Arrow,
            LineStyleKind::Normal,
            &labels.join(", "),
            &edge_look(),
            &None,
            &None,
        );
        vg.add_edge(arrow, handles[a], handles[b]);
        drawn.extend(edges.iter().copied());
        ranking.remove(&(a, b));
    }
    let mut ranking: Vec<_> = ranking.into_iter().collect();
    ranking.sort_unstable();
    for (a, b) in ranking {
        if !labelled.contains_key(&(a, b)) {
            vg.add_edge(Arrow::invisible(), handles[a], handles[b]);
        }
    }
    let mut rec = Recorder::default();
    vg.do_it(false, false, false, &mut rec);

    let mut out = Laid {
        paths: rec.paths,
        labels: rec.labels,
        ..Laid::default()
    };
    let mut placed = Vec::new();
    for (i, &item) in items.iter().enumerate() {
        let (tl, br) = vg.pos(handles[i]).bbox(false);
        let r = Rect {
            x: tl.x,
            y: tl.y,
            w: br.x - tl.x,
            h: br.y - tl.y,
        };
        placed.push(r);
        match item {
            Item::Node(n) => out.nodes.push((n, r)),
            Item::Cluster(k) => {
                if let Some(laid) = children.remove(&k) {
                    out.absorb(laid, r.x, r.y);
                }
            }
        }
    }
    // Normalize to a top-left origin.
    let mut min = Point::new(f64::INFINITY, f64::INFINITY);
    let mut max = Point::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    let mut grow = |p: Point| {
        min = Point::new(min.x.min(p.x), min.y.min(p.y));
        max = Point::new(max.x.max(p.x), max.y.max(p.y));
    };
    for r in &placed {
        grow(Point::new(r.x, r.y));
        grow(Point::new(r.x + r.w, r.y + r.h));
    }
    for p in &out.paths {
        for (a, b) in &p.points {
            grow(*a);
            grow(*b);
        }
    }
    for (p, text) in &out.labels {
        let half = text.chars().count() as f64 * EDGE_FONT as f64 * 0.6 / 2.0;
        grow(Point::new(p.x - half, p.y - 6.0));
        grow(Point::new(p.x + half, p.y + 6.0));
    }
    out.translate(-min.x, -min.y);
    out.w = max.x - min.x;
    out.h = max.y - min.y;
    out
}

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

fn fmt(v: f64) -> String {
    format!("{:.1}", v)
}

fn cluster_style(kind: ClusterKind) -> (&'static str, &'static str, &'static str) {
    // (class, fill, dash)
    match kind {
        ClusterKind::Function => ("function", "#fafafa", ""),
        ClusterKind::If => ("if", "#fff7e0", ""),
        ClusterKind::Then => ("then", "#ffffff", " stroke-dasharray=\"4,3\""),
        ClusterKind::Else => ("else", "#ffffff", " stroke-dasharray=\"4,3\""),
        ClusterKind::Loop => ("loop", "#e8f5e9", ""),
        ClusterKind::Body => ("body", "#ffffff", " stroke-dasharray=\"4,3\""),
        ClusterKind::Fused => ("fused", "#e3f2fd", ""),
    }
}

/// The SVG picture of `graphs` (one, or several side by side: `--compare`).
///
/// Layout runs in layout-rs, whose internal invariants are asserted; a picture it cannot lay
/// out is an `Err`, never a crash.
pub fn to_svg(graphs: &[Graph]) -> Result<String, String> {
    let result = std::panic::catch_unwind(|| render(graphs));
    result.map_err(|e| {
        let why = e
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        format!("the graph layout failed ({why}); `--emit dot` still works")
    })
}

fn render(graphs: &[Graph]) -> String {
    let mut body = String::new();
    let mut x = GAP / 2.0;
    let mut height: f64 = 0.0;
    for (gi, g) in graphs.iter().enumerate() {
        let mut drawn = HashSet::new();
        let mut laid = lay_cluster(g, 0, &mut drawn);
        laid.translate(x, GAP / 2.0);
        draw_graph(&mut body, g, gi, &laid, &drawn);
        x += laid.w + GAP;
        height = height.max(laid.h + GAP);
    }
    let width = x - GAP / 2.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" font-size=\"{FONT}\">",
        w = fmt(width.max(1.0)),
        h = fmt(height.max(1.0)),
    );
    out.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#4a6a9a\"/></marker></defs>\n");
    let _ = writeln!(
        out,
        "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
        fmt(width.max(1.0)),
        fmt(height.max(1.0))
    );
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

fn draw_graph(out: &mut String, g: &Graph, gi: usize, laid: &Laid, drawn: &HashSet<usize>) {
    let _ = writeln!(
        out,
        "<g class=\"graph\" id=\"g{gi}\"><title>{}</title>",
        esc(&g.title)
    );
    // Frames outer first (they were collected parent before child).
    for &(c, r) in &laid.frames {
        let cl = &g.clusters[c];
        let (class, fill, dash) = cluster_style(cl.kind);
        let _ = writeln!(
            out,
            "<g class=\"cluster {class}\" id=\"g{gi}c{c}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\" fill=\"{fill}\" stroke=\"#888888\"{dash}/><text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text></g>",
            fmt(r.x),
            fmt(r.y),
            fmt(r.w),
            fmt(r.h),
            fmt(r.x + PAD),
            fmt(r.y + LABEL_H - 4.0),
            esc(&cl.label)
        );
    }
    let rects: HashMap<NodeId, Rect> = laid.nodes.iter().copied().collect();
    // Edges layout-rs routed.
    for p in &laid.paths {
        let mut d = format!(
            "M {} {} C {} {}, {} {}, {} {}",
            fmt(p.points[0].0.x),
            fmt(p.points[0].0.y),
            fmt(p.points[0].1.x),
            fmt(p.points[0].1.y),
            fmt(p.points[1].0.x),
            fmt(p.points[1].0.y),
            fmt(p.points[1].1.x),
            fmt(p.points[1].1.y)
        );
        for (a, b) in p.points.iter().skip(2) {
            let _ = write!(d, " S {} {}, {} {}", fmt(a.x), fmt(a.y), fmt(b.x), fmt(b.y));
        }
        let _ = writeln!(
            out,
            "<g class=\"edge\"><path d=\"{d}\" fill=\"none\" stroke=\"#4a6a9a\" marker-end=\"url(#arrow)\"/></g>"
        );
    }
    for (p, text) in &laid.labels {
        let _ = writeln!(
            out,
            "<text class=\"edge-label\" x=\"{}\" y=\"{}\" font-size=\"{EDGE_FONT}\" text-anchor=\"middle\" fill=\"#4a6a9a\">{}</text>",
            fmt(p.x),
            fmt(p.y + 3.0),
            esc(text)
        );
    }
    // Edges into and out of clusters: from the bottom of the definition (or of the outermost
    // cluster it leaves) to the top of the outermost cluster it enters, then straight down to
    // the use, so that a value entering a region visibly enters its box.
    let frames: HashMap<ClusterId, Rect> = laid.frames.iter().copied().collect();
    let chain = |n: NodeId| {
        let mut out = vec![g.nodes[n].cluster];
        while let Some(p) = g.clusters[*out.last().unwrap_or(&0)].parent {
            out.push(p);
        }
        out
    };
    // Several edges into one node arrive side by side, their labels stacked.
    // One value used twice by one op (`x + 1` with `alpha=1`) is one curve.
    let mut arriving: HashMap<NodeId, (usize, usize)> = HashMap::new();
    let mut pairs = HashSet::new();
    let mut todo = Vec::new();
    for (ei, e) in g.edges.iter().enumerate() {
        if !drawn.contains(&ei) && pairs.insert((e.from, e.to)) {
            arriving.entry(e.to).or_default().1 += 1;
            todo.push(e);
        }
    }
    for e in todo {
        let (Some(a), Some(b)) = (rects.get(&e.from), rects.get(&e.to)) else {
            continue;
        };
        let slot = arriving.get_mut(&e.to).map_or((0, 1), |s| {
            s.0 += 1;
            (s.0 - 1, s.1)
        });
        let (from_chain, to_chain) = (chain(e.from), chain(e.to));
        let left = from_chain
            .iter()
            .take_while(|c| !to_chain.contains(c))
            .last()
            .and_then(|c| frames.get(c));
        let entered = to_chain
            .iter()
            .take_while(|c| !from_chain.contains(c))
            .last()
            .and_then(|c| frames.get(c));
        let (sx, sy) = match left {
            Some(f) => (f.x + f.w / 2.0, f.y + f.h),
            None => (a.x + a.w / 2.0, a.y + a.h),
        };
        let tx = b.x + b.w * (slot.0 as f64 + 1.0) / (slot.1 as f64 + 1.0);
        let ty = b.y;
        let ey = entered.map_or(ty, |f| f.y);
        let bend = ((ey - sy).abs() / 2.0).max(20.0);
        let mut d = format!(
            "M {} {} C {} {}, {} {}, {} {}",
            fmt(sx),
            fmt(sy),
            fmt(sx),
            fmt(sy + bend),
            fmt(tx),
            fmt(ey - bend),
            fmt(tx),
            fmt(ey)
        );
        if entered.is_some() {
            let _ = write!(d, " L {} {}", fmt(tx), fmt(ty));
        }
        let (lx, ly) = if entered.is_some() {
            (tx + 4.0, ey - 4.0 - 11.0 * slot.0 as f64)
        } else {
            (sx + 4.0, sy + 12.0)
        };
        let _ = writeln!(
            out,
            "<g class=\"edge cross\"><path d=\"{d}\" fill=\"none\" stroke=\"#4a6a9a\" stroke-opacity=\"0.8\" marker-end=\"url(#arrow)\"/><text class=\"edge-label\" x=\"{}\" y=\"{}\" font-size=\"{EDGE_FONT}\" fill=\"#4a6a9a\">{}</text></g>",
            fmt(lx),
            fmt(ly),
            esc(&e.label)
        );
    }
    // Nodes last, on top of the edges.
    for &(n, r) in &laid.nodes {
        let node = &g.nodes[n];
        let (class, fill, stroke, rx) = match node.kind {
            NodeKind::Op => ("node op", "#eef3fb", "#4a6a9a", 4.0),
            NodeKind::Guard => ("node op guard", "#ffcc80", "#e65100", 4.0),
            NodeKind::Param => ("node param", "#f4f4f4", "#666666", r.h / 2.0),
        };
        let line_attr = node
            .line
            .map(|l| format!(" data-line=\"{l}\""))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<g class=\"{class}\" id=\"g{gi}n{n}\" data-op=\"{}\"{line_attr}><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\"{}/><text x=\"{}\" text-anchor=\"middle\">",
            esc(&node.label),
            esc(&node.detail),
            fmt(r.x),
            fmt(r.y),
            fmt(r.w),
            fmt(r.h),
            fmt(rx),
            if node.kind == NodeKind::Guard {
                " stroke-width=\"2\""
            } else {
                ""
            },
            fmt(r.x + r.w / 2.0),
        );
        for (i, line) in node_lines(g, n).iter().enumerate() {
            let y = r.y + PAD / 2.0 + LINE_H * (i as f64 + 1.0) - 3.0;
            let _ = write!(
                out,
                "<tspan x=\"{}\" y=\"{}\"{}>{}</tspan>",
                fmt(r.x + r.w / 2.0),
                fmt(y),
                if i > 0 { " fill=\"#777777\"" } else { "" },
                esc(line)
            );
        }
        out.push_str("</text></g>\n");
    }
    out.push_str("</g>\n");
}
