//! Every case of the program corpus (tests/programs/) through the eager evaluator and through
//! traced functions (one per program function, called on every case in order, so later cases
//! exercise guards and re-tracing), compared with PyTorch's outputs.

mod common;

use common::{Case, cases, check};
use pyjit_trace::{TraceOptions, TracedFunction};
use std::collections::{BTreeMap, BTreeSet};

/// Programs whose cases the eager evaluator gets wrong today, with the reason
/// (`eager_known_failures.txt` next to this file: `program: reason` lines, `#` comments). The test
/// fails if a listed program passes (so the list shrinks as constructs are implemented) or an
/// unlisted one fails.
const EAGER_KNOWN_FAILURES: &str = include_str!("eager_known_failures.txt");

/// Programs whose traced functions fail today beyond the eager failures (`trace_known_failures.txt`).
const TRACE_KNOWN_FAILURES: &str = include_str!("trace_known_failures.txt");

/// The program names of a known-failure list.
fn listed(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.split(':').next().unwrap_or(l).trim().to_string())
        .collect()
}

/// The program of a case id (`program/k`).
fn program_of(id: &str) -> &str {
    id.split('/').next().unwrap_or(id)
}

fn assert_failures(kind: &str, failures: BTreeMap<String, String>, known: &str) {
    let known = listed(known);
    let unexpected: Vec<String> = failures
        .iter()
        .filter(|(k, _)| !known.contains(program_of(k)))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    let failing: BTreeSet<&str> = failures.keys().map(|k| program_of(k)).collect();
    let fixed: Vec<&String> = known
        .iter()
        .filter(|k| !failing.contains(k.as_str()))
        .collect();
    assert!(
        unexpected.is_empty() && fixed.is_empty(),
        "{kind}: {} unexpected failures:\n{}\nlisted as known failures but now passing: {fixed:?}",
        unexpected.len(),
        unexpected.join("\n")
    );
}

#[test]
fn eager_evaluator_matches_pytorch_on_the_corpus() {
    let all = cases();
    assert!(all.len() > 500, "corpus not found");
    let mut failures = BTreeMap::new();
    for case in &all {
        let file = case.source();
        let module = pyjit_syntax::parse_module(&file).expect("corpus parses");
        let mut out = Vec::new();
        let got =
            pyjit_trace::eval_function_to(&file, &module, &case.func, case.args.clone(), &mut out);
        if let Some(why) = check(case, got, &String::from_utf8_lossy(&out)) {
            failures.insert(case.id(), why);
        }
    }
    assert_failures("eager", failures, EAGER_KNOWN_FAILURES);
}

/// The cases grouped by (program, function), so that one traced function serves its argument
/// sets one after the other.
fn by_function(all: &[Case]) -> BTreeMap<(String, String), Vec<&Case>> {
    let mut by_fn: BTreeMap<(String, String), Vec<&Case>> = BTreeMap::new();
    for c in all {
        by_fn
            .entry((c.program.clone(), c.func.clone()))
            .or_default()
            .push(c);
    }
    by_fn
}

#[test]
fn traced_functions_match_pytorch_on_every_argument_set() {
    let all = cases();
    let mut failures = BTreeMap::new();
    let eager = listed(EAGER_KNOWN_FAILURES);
    for ((_, func), cs) in by_function(&all) {
        let file = cs[0].source();
        let mut tf =
            TracedFunction::from_source(file, func, TraceOptions::default()).expect("parses");
        for case in cs {
            let mut out = Vec::new();
            let got = tf.call_to(case.args.clone(), &mut out);
            if let Some(why) = check(case, got, &String::from_utf8_lossy(&out))
                && !eager.contains(program_of(&case.id()))
            {
                failures.insert(case.id(), why);
            }
        }
    }
    assert_failures("trace", failures, TRACE_KNOWN_FAILURES);
}

/// With guards off (`--no-guards`) a traced function is torch.jit.trace: the first trace answers
/// every later argument set. The cases it gets wrong are exactly the ones whose Python control
/// flow depends on the data; the list is a snapshot, and must include the seed's and the peer
/// benchmark's examples where torch.jit.trace is known to be silently wrong.
#[test]
fn without_guards_traces_are_wrong_where_torch_jit_trace_is() {
    let all = cases();
    let eager = listed(EAGER_KNOWN_FAILURES);
    let mut wrong = Vec::new();
    for ((_, func), cs) in by_function(&all) {
        let file = cs[0].source();
        let mut tf =
            TracedFunction::from_source(file, func, TraceOptions::no_guards()).expect("parses");
        for case in cs {
            if eager.contains(program_of(&case.id())) {
                continue;
            }
            let mut out = Vec::new();
            let got = tf.call_to(case.args.clone(), &mut out);
            let how = match (&got, case.expected()) {
                (Ok(_), common::Expected::Error(k, _)) => {
                    format!("returned instead of raising {k}")
                }
                (Err(e), common::Expected::Ok(_)) => format!("raised {}", e.kind),
                _ => match check(case, got, &String::from_utf8_lossy(&out)) {
                    Some(why) if why.starts_with("stdout") => "printed something else".to_string(),
                    Some(_) => "wrong result".to_string(),
                    None => continue,
                },
            };
            wrong.push(format!("{}: {how}", case.id()));
        }
    }
    for must in ["conditional_op/", "converge/", "iterate/"] {
        assert!(
            wrong.iter().any(|w| w.starts_with(must)),
            "{must} should be wrong without guards"
        );
    }
    insta::assert_snapshot!("no_guards_wrong_cases", wrong.join("\n"));
}
