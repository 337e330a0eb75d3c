//! The pass manager: pipelines per level, explicit lists, `--opt-limit`, print-after, the
//! statistics and the verifier's safety net.

use pyjit_ir::{parse_module, print_module_without_spans};
use pyjit_opt::manager::{OptLevel, PipelineConfig, run_pipeline, run_pipeline_from};
use pyjit_opt::passes::ALL_PASSES;

const SRC: &str = "
func @f(%x: int) -> int {
  %a: int = const 2
  %b: int = const 3
  %c: int = int.mul(%a, %b)
  %d: int = int.add(%a, %b)
  %e: int = int.mul(%c, %d)
  %z: int = const 0
  %g: int = int.add(%x, %z)
  %h: int = int.add(%g, %e)
  return %h
}
";

#[test]
fn levels_have_the_documented_pipelines() {
    assert!(OptLevel::O0.pipeline().is_empty());
    for p in OptLevel::O1
        .pipeline()
        .iter()
        .chain(OptLevel::O2.pipeline())
    {
        assert!(ALL_PASSES.contains(p), "{p}");
    }
    for p in ALL_PASSES {
        assert!(OptLevel::O2.pipeline().contains(p), "-O2 runs {p}");
    }
    // Fusion runs last: it groups what the cleanups left.
    assert_eq!(OptLevel::O2.pipeline().last(), Some(&"fuse"));
    assert_eq!(OptLevel::parse("-O2"), Some(OptLevel::O2));
    assert_eq!(OptLevel::parse("1"), Some(OptLevel::O1));
    assert_eq!(OptLevel::parse("O3"), None);
}

#[test]
fn o0_changes_nothing_and_o1_folds() {
    let m = parse_module(SRC).unwrap();
    let mut m0 = m.clone();
    let r0 = run_pipeline(&mut m0, &PipelineConfig::for_level(OptLevel::O0));
    assert!(r0.runs.is_empty());
    assert_eq!(
        print_module_without_spans(&m0),
        print_module_without_spans(&m)
    );
    let mut m1 = m.clone();
    let r1 = run_pipeline(&mut m1, &PipelineConfig::for_level(OptLevel::O1));
    assert_eq!(r1.ops_before, 9);
    assert!(r1.ops_after < r1.ops_before, "{}", r1.render(false));
    let text = print_module_without_spans(&m1);
    assert!(text.contains("const 30"), "{text}");
    assert!(!text.contains("int.mul"), "{text}");
}

#[test]
fn explicit_list_and_parse_errors() {
    let names = PipelineConfig::parse_pass_list("constfold, dce").unwrap();
    assert_eq!(names, ["constfold", "dce"]);
    let err = PipelineConfig::parse_pass_list("constfold,bogus").unwrap_err();
    assert!(err.0.contains("unknown pass `bogus`"), "{err}");
    let mut c = PipelineConfig::default();
    assert!(c.add_opt_limit("constfold=2").is_ok());
    assert!(c.add_opt_limit("constfold").is_err());
    assert!(c.add_opt_limit("constfold=x").is_err());
    assert!(c.add_opt_limit("nope=1").is_err());
    assert!(c.add_print_after("dce").is_ok());
    assert!(c.add_print_after("nope").is_err());
}

#[test]
fn opt_limit_applies_only_the_first_rewrites() {
    let m = parse_module(SRC).unwrap();
    let mut counts = Vec::new();
    for limit in 0..4 {
        let mut mm = m.clone();
        let mut c = PipelineConfig {
            passes: Some(vec!["constfold".into()]),
            verify: true,
            ..PipelineConfig::default()
        };
        c.add_opt_limit(&format!("constfold={limit}")).unwrap();
        let r = run_pipeline(&mut mm, &c);
        let s = &r.runs[0].stats;
        assert_eq!(s.rewrites, limit.min(3), "limit {limit}: {}", s.summary());
        counts.push(
            print_module_without_spans(&mm).matches("int.mul").count()
                + print_module_without_spans(&mm).matches("int.add").count(),
        );
    }
    // Each extra rewrite folds one more of the 5 int ops (3 are foldable: 2*3, 2+3, 6*5).
    assert_eq!(counts, [5, 4, 3, 2]);
}

#[test]
fn opt_limit_is_shared_by_every_run_of_a_pass() {
    let m = parse_module(SRC).unwrap();
    let mut mm = m.clone();
    let mut c = PipelineConfig {
        passes: Some(vec!["constfold".into(), "constfold".into()]),
        ..PipelineConfig::default()
    };
    c.add_opt_limit("constfold=2").unwrap();
    let r = run_pipeline(&mut mm, &c);
    let total: u64 = r.runs.iter().map(|x| x.stats.rewrites).sum();
    assert_eq!(total, 2);
    assert!(r.runs[1].stats.skipped > 0);
}

#[test]
fn print_after_and_timings() {
    let m = parse_module(SRC).unwrap();
    let mut mm = m.clone();
    let mut c = PipelineConfig::for_level(OptLevel::O1);
    c.add_print_after("constfold").unwrap();
    let r = run_pipeline(&mut mm, &c);
    let dumps = r.dumps();
    assert_eq!(
        dumps.matches("; ---- IR after constfold ----").count(),
        1,
        "{dumps}"
    );
    assert!(dumps.contains("func @f"));
    let mut all = m.clone();
    let c = PipelineConfig {
        print_after_all: true,
        ..PipelineConfig::for_level(OptLevel::O1)
    };
    let r = run_pipeline(&mut all, &c);
    assert_eq!(
        r.runs.iter().filter(|x| x.dump.is_some()).count(),
        r.runs.len()
    );
    let table = r.render(true);
    assert!(table.contains(" ms"), "{table}");
    assert!(table.contains("total: 9 ->"), "{table}");
    let by_pass = r.stats_by_pass();
    assert!(
        by_pass
            .iter()
            .any(|(p, s)| p == "constfold" && s.folded == 3)
    );
}

/// `run_pipeline_from` optimizes what the roots reach, before and after inlining: a helper that
/// inlining absorbed and a function nothing calls are left as they were; the same module through
/// `run_pipeline` has all of them optimized.
#[test]
fn pipeline_from_roots_leaves_unreached_functions_alone() {
    let src = "
func @helper(%x: int) -> int {
  %a: int = const 2
  %b: int = const 3
  %c: int = int.mul(%a, %b)
  %d: int = int.add(%x, %c)
  return %d
}

func @unused(%x: int) -> int {
  %a: int = const 4
  %b: int = const 5
  %c: int = int.mul(%a, %b)
  %d: int = int.add(%x, %c)
  return %d
}

func @main(%x: int) -> int {
  %r: int = call @helper(%x)
  return %r
}
";
    let m = parse_module(src).unwrap();
    let main = m.function_by_name("main").unwrap();
    let helper = m.function_by_name("helper").unwrap();
    let unused = m.function_by_name("unused").unwrap();
    let config = PipelineConfig::for_level(OptLevel::O2);
    let function_text = |m: &pyjit_ir::Module, id| {
        let mut one = pyjit_ir::Module::new();
        one.push_function(m.func(id).clone());
        print_module_without_spans(&one)
    };

    let mut rooted = m.clone();
    let report = run_pipeline_from(&mut rooted, &config, Some(&[main]));
    let main_text = function_text(&rooted, main);
    assert!(main_text.contains("const 6"), "{main_text}");
    assert!(!main_text.contains("call"), "{main_text}");
    // `unused` is never reached; `helper` is reached until inlining removes its only call.
    assert_eq!(function_text(&rooted, unused), function_text(&m, unused));
    assert_eq!(function_text(&rooted, helper), function_text(&m, helper));
    assert_eq!(report.ops_after, rooted.func(main).all_ops().len());

    let mut all = m.clone();
    run_pipeline(&mut all, &config);
    let unused_text = function_text(&all, unused);
    assert!(unused_text.contains("const 20"), "{unused_text}");
    assert!(!unused_text.contains("int.mul"), "{unused_text}");
}
