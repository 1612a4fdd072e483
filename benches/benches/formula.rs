//! Formula speed: one damage formula evaluated with its five variables changing every
//! iteration, by Actforge, a native Rust closure (the floor), exmex (the fastest maintained
//! expression evaluator) and rhai (what a user would embed instead); and parse + compile
//! (to a ready-to-run program) into a new set and into a set that already knows the names.
//!
//! Floors: ≤ 3× the closure, faster than exmex, ≥ 20× faster than rhai, parse + compile ≤ 5 µs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::indexing_slicing, clippy::float_cmp)] // a benchmark; results must match exactly

/// The allocator the `actforge` binary uses, so the timings are what designers get.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;

use actforge_runtime::formula::{AnyNames, Env, FormulaSet, LookupSlot};
use actforge_tests::{Rng, criterion_mean_ns};
use criterion::Criterion;
use exmex::{BinOp, Express, FlatEx, FloatOpsFactory, MakeOperators, Operator};

const FORMULA: &str = "max(0, (c.atk * 1.5 - t.def) * (if c.lvl > t.lvl: 1.2; 1.0)) + floor(c.luck / 10)";
const GROUP: &str = "formula";
/// Inputs: (atk, def, actor level, target level, luck), cycled through.
const INPUTS: usize = 1024;

/// Actforge's environment over the five values (slots are interned in reading order).
struct Vars<'a>(&'a [f64; 5]);

impl Env for Vars<'_> {
    #[inline]
    fn value(&mut self, slot: LookupSlot) -> f64 {
        self.0.get(slot.0 as usize).copied().unwrap_or(f64::NAN)
    }
    fn has(&mut self, slot: LookupSlot) -> bool {
        (slot.0 as usize) < self.0.len()
    }
    fn random_bits(&mut self) -> u64 {
        0
    }
}

/// exmex's float operators plus `>` (exmex has no comparisons or `if` for plain floats, so the
/// formula is written `1.0 + 0.2 * (clvl > tlvl)`, which gives the same numbers).
#[derive(Clone, Debug)]
struct WithGreater;

impl MakeOperators<f64> for WithGreater {
    fn make<'a>() -> Vec<Operator<'a, f64>> {
        let mut operators = FloatOpsFactory::<f64>::make();
        operators.push(Operator::make_bin(
            ">",
            BinOp { apply: |a, b| if a > b { 1.0 } else { 0.0 }, prio: 0, is_commutative: false },
        ));
        operators
    }
}

fn native(v: &[f64; 5]) -> f64 {
    let [atk, def, actor_level, target_level, luck] = *v;
    let scaled = (atk * 1.5 - def) * if actor_level > target_level { 1.2 } else { 1.0 };
    let kept = if scaled > 0.0 { scaled } else { 0.0 };
    kept + (luck / 10.0).floor()
}

fn inputs() -> Vec<[f64; 5]> {
    let mut rng = Rng::new(7);
    (0..INPUTS)
        .map(|_| {
            let mut draw = |n: usize| rng.below(n) as f64;
            [draw(40) + 1.0, draw(30), draw(10), draw(10), draw(100)]
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let inputs = inputs();
    let mut set = FormulaSet::new();
    let compiled = set.compile(FORMULA, &AnyNames).unwrap();
    let program = set.program::<Vars<'_>>(&compiled);
    let exmex: FlatEx<f64, WithGreater> =
        FlatEx::parse("max(0, (atk * 1.5 - def) * (1.0 + 0.2 * (clvl > tlvl))) + floor(luck / 10)").unwrap();
    let engine = rhai::Engine::new();
    let ast = engine
        .compile("max(0.0, (atk * 1.5 - def) * (if clvl > tlvl { 1.2 } else { 1.0 })) + floor(luck / 10.0)")
        .unwrap();

    // Every evaluator must agree before it is timed.
    for v in &inputs {
        let expected = native(v);
        assert_eq!(program.eval(&mut Vars(v)), expected);
        // exmex orders variables alphabetically: atk, clvl, def, luck, tlvl.
        assert_eq!(exmex.eval(&[v[0], v[2], v[1], v[4], v[3]]).unwrap(), expected);
        let mut scope = rhai::Scope::new();
        for (name, value) in ["atk", "def", "clvl", "tlvl", "luck"].into_iter().zip(v) {
            scope.push(name, *value);
        }
        assert_eq!(engine.eval_ast_with_scope::<f64>(&mut scope, &ast).unwrap(), expected);
    }

    let mut group = c.benchmark_group(GROUP);
    let mut at = 0usize;
    let mut next = move || {
        at = (at + 1) % INPUTS;
        at
    };
    group.bench_function("floor_native_closure", |b| b.iter(|| native(black_box(&inputs[next()]))));
    group.bench_function("actforge", |b| b.iter(|| program.eval(&mut Vars(black_box(&inputs[next()])))));
    group.bench_function("peer_exmex", |b| {
        b.iter(|| {
            let v = black_box(&inputs[next()]);
            exmex.eval(&[v[0], v[2], v[1], v[4], v[3]]).unwrap()
        });
    });
    let mut scope = rhai::Scope::new();
    for name in ["atk", "def", "clvl", "tlvl", "luck"] {
        scope.push(name, 0.0_f64);
    }
    group.bench_function("peer_rhai", |b| {
        b.iter(|| {
            let v = black_box(&inputs[next()]);
            for (name, value) in ["atk", "def", "clvl", "tlvl", "luck"].into_iter().zip(v) {
                scope.set_value(name, *value);
            }
            engine.eval_ast_with_scope::<f64>(&mut scope, &ast).unwrap()
        });
    });
    group.bench_function("actforge_parse_compile", |b| {
        b.iter(|| {
            let mut set = FormulaSet::new();
            let compiled = set.compile(black_box(FORMULA), &AnyNames).unwrap();
            set.program::<Vars<'_>>(&compiled)
        });
    });
    // A project compiles all its formulas into one set, where most names are already known.
    let mut project_set = FormulaSet::new();
    project_set.compile(FORMULA, &AnyNames).unwrap();
    group.bench_function("actforge_parse_compile_project_set", |b| {
        b.iter(|| {
            let compiled = project_set.compile(black_box(FORMULA), &AnyNames).unwrap();
            project_set.program::<Vars<'_>>(&compiled)
        });
    });
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion);
    criterion.final_summary();
    let get = |name| criterion_mean_ns(GROUP, name);
    if let (Some(native), Some(ours), Some(exmex), Some(rhai), Some(compile), Some(compile_shared)) = (
        get("floor_native_closure"),
        get("actforge"),
        get("peer_exmex"),
        get("peer_rhai"),
        get("actforge_parse_compile"),
        get("actforge_parse_compile_project_set"),
    ) {
        println!("\nformula: {FORMULA}");
        println!("  native closure   {native:8.2} ns");
        println!("  actforge         {ours:8.2} ns   = {:.2}× the closure (floor ≤ 3×)", ours / native);
        println!("  exmex            {exmex:8.2} ns   actforge is {:.2}× faster (floor > 1×)", exmex / ours);
        println!("  rhai             {rhai:8.2} ns   actforge is {:.1}× faster (floor ≥ 20×)", rhai / ours);
        println!("  parse + compile  {:8.2} µs   into a new set (floor ≤ 5 µs)", compile / 1000.0);
        println!("  parse + compile  {:8.2} µs   into a project's set, its names known", compile_shared / 1000.0);
    }
}
