//! The formula language end to end: every example of `spec/srpgck.md` §c and the 2012
//! manual's Appendix A, the precedence table, errors with carets, canonical forms, named
//! formulas, names, and property tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // test code: exact results

use std::collections::BTreeMap;

use actforge_runtime::formula::ast::{
    Ast, AstKind, BinaryOp, Builtin, Change, EffectSearch, EquipSearch, Holder, Lookup, Merge, Scope, Side,
};
use actforge_runtime::formula::query::{Query, QueryError, evaluate};
use actforge_runtime::formula::{
    AnyNames, Env, FormulaSet, Issue, LookupSlot, NameCheck, Names, ProjectNames, Span, ValuesEnv, canonical,
    canonical_text, parse,
};
use actforge_runtime::model::{Formula, Id, Project, Stat, StatValue, Unit};
use proptest::prelude::*;

/// Evaluates `text` with `values` (by lookup text) and seed 1.
fn eval_with(text: &str, values: &[(&str, f64)]) -> f64 {
    let query = Query {
        values: values.iter().map(|(name, value)| ((*name).to_owned(), *value)).collect(),
        seed: 1,
        ..Query::default()
    };
    evaluate(text, &query).unwrap_or_else(|error| panic!("{text}: {error:?}"))
}

fn eval(text: &str) -> f64 {
    eval_with(text, &[])
}

/// The error message and the column (in characters) of its caret.
fn error_of(text: &str) -> (String, usize) {
    let error = parse(text).expect_err(text);
    (error.message.clone(), error.column(text))
}

fn canon(text: &str) -> String {
    canonical_text(text).unwrap_or_else(|error| panic!("{text}: {}", error.render(text)))
}

#[test]
fn arithmetic_and_the_precedence_examples_of_the_spec() {
    assert_eq!(eval("-2^2"), 4.0, "prefix minus captures only the primary");
    assert_eq!(eval("-1*-1"), 1.0);
    assert_eq!(eval("2*-3"), -6.0);
    assert_eq!(eval("2^-1"), 0.5);
    assert_eq!(eval("--1"), 1.0);
    assert_eq!(eval("2^3^2"), 512.0, "^ is right-associative");
    assert_eq!(eval_with("1 + if x: 2; 3 * 4", &[("x", 1.0)]), 3.0);
    assert_eq!(eval_with("1 + if x: 2; 3 * 4", &[("x", 0.0)]), 13.0);
    assert_eq!(eval_with("a<b<d", &[("a", 3.0), ("b", 2.0), ("d", 1.0)]), 1.0, "(3<2)<1 = 0<1");
    assert_eq!(eval_with("a or b and d", &[("a", 1.0), ("b", 0.0), ("d", 0.0)]), 0.0, "(a or b) and d");
    assert_eq!(eval_with("not a == b", &[("a", 1.0), ("b", 1.0)]), 0.0, "not (a == b)");
    assert_eq!(eval_with("not a and b", &[("a", 0.0), ("b", 1.0)]), 1.0, "(not a) and b");
    assert_eq!(eval("max((1<2), 1)"), 1.0);
}

#[test]
fn parentheses_are_respected_where_the_reference_flattened_them() {
    // The reference computed a - b - c, a / b / c and (a div b) div c here (a bug).
    assert_eq!(eval("10 - (4 - 1)"), 7.0);
    assert_eq!(eval("8 / (4 / 2)"), 4.0);
    assert_eq!(eval("20 div (7 div 2)"), 6.0);
    assert_eq!(eval("2 * (3 * 4)"), 24.0);
}

#[test]
fn appendix_a_examples() {
    for (text, expected) in [
        ("0", 0.0),
        ("1", 1.0),
        ("0.5", 0.5),
        ("-20", -20.0),
        ("1024", 1024.0),
        ("1+1", 2.0),
        ("2^6", 64.0),
        ("-1*-1", 1.0),
        ("0 <= 1", 1.0),
        ("10/2 < 9/3", 0.0),
        ("4 == 2 + 2", 1.0),
        ("0 == (1 != 1)", 1.0),
        ("abs(-3)", 3.0),
        ("root(16)", 4.0),
        ("root(27, 3)", 3.0),
        ("mean(1, 2, 3, 6)", 3.0),
        ("min(4, 2, 8)", 2.0),
        ("max(4, 2, 8)", 8.0),
        ("clamp(1.5)", 1.0),
        ("clamp(-2, 0, 3)", 0.0),
        ("floor(2.7)", 2.0),
        ("ceil(2.2)", 3.0),
        ("round(2.4)", 2.0),
    ] {
        assert_eq!(eval(text), expected, "{text}");
    }
    let big = eval("(2^(4/6)+9/8)*3^3^2");
    assert!((big - (2f64.powf(4.0 / 6.0) + 9.0 / 8.0) * 3f64.powf(9.0)).abs() < 1e-6, "{big}");
    // The manual's own random{} example uses sqrt(), which does not exist.
    let (message, column) = error_of("random{0.1:0; 0.1:1; 0.2:2; 1/2:sqrt(3^2); default:4}");
    assert!(message.contains("`sqrt` is not a builtin"), "{message}");
    assert_eq!(column, 32);
}

#[test]
fn a_scope_letter_alone_is_a_plain_name_as_in_the_manual() {
    // The manual writes `a - (b - c)`; before, `c` always opened the actor's scope and this
    // failed with "expected `.` after `c`".
    assert_eq!(eval_with("a - (b - c)", &[("a", 10.0), ("b", 4.0), ("c", 3.0)]), 9.0);
    assert_eq!(eval_with("f * t + c", &[("f", 2.0), ("t", 5.0), ("c", 1.0)]), 11.0);
    assert_eq!(eval_with("c + c.PA", &[("c", 1.0), ("c.PA", 4.0)]), 5.0, "`c.` still opens the actor");
    assert_eq!(eval_with("t . PA", &[("t.PA", 4.0)]), 4.0, "a `.` after spaces still opens the scope");
    let plain = |text: &str| match parse(text).unwrap().kind {
        AstKind::Lookup(lookup) => lookup,
        other => panic!("{text}: {other:?}"),
    };
    for letter in ["c", "t", "f"] {
        assert_eq!(plain(letter), Lookup { scope: Scope::Auto, name: letter.to_owned() });
    }
    assert_eq!(canon("a-(b-c)"), "a - (b - c)");
    assert_eq!(canon("if c: t; f"), "if c: t; f");
    assert!(error_of("c(1)").0.contains("unexpected `(`"), "{}", error_of("c(1)").0);
}

#[test]
fn builtin_semantics_of_the_reference() {
    assert_eq!(eval("round(2.5)"), 2.0, "half to even");
    assert_eq!(eval("round(3.5)"), 4.0);
    assert_eq!(eval("round(-2.5)"), -2.0);
    assert_eq!(eval("clamp(5, 1)"), 1.0, "clamp(x, lo) clamps to [lo, 1]");
    assert_eq!(eval("clamp(0.5, 0.2)"), 0.5);
    assert_eq!(eval("trunc(-2.7)"), -2.0);
    assert_eq!(eval("7 div 2"), 3.0);
    assert_eq!(eval("-7 div 2"), -3.0, "div truncates toward zero");
    assert_eq!(eval("-7 % 3"), -1.0, "the remainder takes the dividend's sign");
    assert!(eval("5 % 0").is_nan());
    assert_eq!(eval("1 / 0"), f64::INFINITY);
    assert_eq!(eval("1 div 0"), f64::INFINITY, "div by zero: ±inf like /, then truncated");
    assert!(eval("0 / 0").is_nan());
    assert_eq!(eval("true + true"), 2.0);
    assert_eq!(eval("false"), 0.0);
    assert_eq!(eval("3 and 4"), 1.0, "and/or give 0 or 1");
}

#[test]
fn nan_is_true_and_compares_false_except_not_equal() {
    let nan = [("n", f64::NAN)];
    assert_eq!(eval_with("if n: 1; 2", &nan), 1.0);
    assert_eq!(eval_with("n == n", &nan), 0.0);
    assert_eq!(eval_with("n != n", &nan), 1.0);
    assert_eq!(eval_with("n < 1", &nan), 0.0);
    assert!(eval_with("min(1, n, 2)", &nan).is_nan(), "min is NaN if any argument is");
    assert_eq!(eval_with("max(1, n, 2)", &nan), 2.0, "max ignores NaN");
    assert_eq!(eval_with("max(n, 3)", &nan), 3.0);
    assert!(eval_with("max(n, n)", &nan).is_nan());
    assert!(eval_with("n + 1", &nan).is_nan());
}

#[test]
fn random_draws_come_from_the_seed() {
    let query = |seed| Query { seed, ..Query::default() };
    let a = evaluate("random() + random(10) + random(5, 6) + any(1, 2, 3)", &query(7)).unwrap();
    let b = evaluate("random() + random(10) + random(5, 6) + any(1, 2, 3)", &query(7)).unwrap();
    let c = evaluate("random() + random(10) + random(5, 6) + any(1, 2, 3)", &query(8)).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    for seed in 0..200 {
        let value = evaluate("random(5, 6)", &query(seed)).unwrap();
        assert!((5.0..=6.0).contains(&value), "{value}");
        let choice = evaluate("any(1, 2, 3)", &query(seed)).unwrap();
        assert!([1.0, 2.0, 3.0].contains(&choice));
    }
}

#[test]
fn random_branches_follow_their_weights() {
    let mut counts = BTreeMap::new();
    for seed in 0..4000 {
        let value =
            evaluate("random{0.1:0; 0.1:1; 0.2:2; 1/2:root(3^2); default:4}", &Query { seed, ..Query::default() })
                .unwrap();
        *counts.entry(value as i64).or_insert(0) += 1;
    }
    for (value, share) in [(0, 0.1), (1, 0.1), (2, 0.2), (3, 0.5), (4, 0.1)] {
        let seen = f64::from(counts.get(&value).copied().unwrap_or(0)) / 4000.0;
        assert!((seen - share).abs() < 0.03, "{value}: {seen} vs {share}");
    }
    // Weights below the roll and no default: NaN.
    let nan = (0..50)
        .filter(|seed| evaluate("random{0.01: 1}", &Query { seed: *seed, ..Query::default() }).unwrap().is_nan());
    assert!(nan.count() > 40);
}

#[test]
fn cond_and_switch() {
    assert_eq!(eval_with("cond { x > 2: 10; default: 0; x > 1: 5 }", &[("x", 1.5)]), 5.0, "default moves to the end");
    assert_eq!(eval_with("cond { x > 2: 10; default: 0; x > 1: 5 }", &[("x", 0.0)]), 0.0);
    assert!(eval_with("cond { x > 2: 10 }", &[("x", 0.0)]).is_nan());
    assert_eq!(eval_with("switch (x) { 1: 10; default: 0; 2: 20 }", &[("x", 2.0)]), 20.0);
    assert_eq!(eval_with("switch (x) { 1: 10; default: 0; 2: 20 }", &[("x", 3.0)]), 0.0);
    assert!(eval_with("switch (x) { 1: 10 }", &[("x", 3.0)]).is_nan());
}

#[test]
fn facing_branches_resolve_exact_then_sides_then_towards_then_default() {
    let with = |side: Option<Side>, text: &str| evaluate(text, &Query { facing: side, ..Query::default() }).unwrap();
    let text = "targeted-side { front: 1; sides: 2; towards: 3; away: 4; default: 5 }";
    assert_eq!(with(Some(Side::Front), text), 1.0);
    assert_eq!(with(Some(Side::Left), text), 2.0);
    assert_eq!(with(Some(Side::Right), text), 2.0);
    assert_eq!(with(Some(Side::Back), text), 3.0);
    assert_eq!(with(Some(Side::Away), text), 4.0);
    assert_eq!(with(Some(Side::Back), "targeter-side { left: 1; default: 9 }"), 9.0);
    assert!(with(Some(Side::Away), "targeted-side { front: 1; towards: 3 }").is_nan());
    assert!(with(None, text).is_nan(), "without a skill there is no side");
}

#[test]
fn exists_and_lookup_handle_unknown_names_at_run_time() {
    assert_eq!(eval("exists(x)"), 0.0);
    assert_eq!(eval("lookup(x, 4)"), 4.0);
    assert_eq!(eval_with("exists(x)", &[("x", 2.0)]), 1.0);
    assert_eq!(eval_with("lookup(x, 4)", &[("x", 2.0)]), 2.0);
    assert_eq!(eval_with("lookup(c.PA, 1) + exists(t.status.Poisoned)", &[("c.PA", 3.0)]), 3.0);
    assert_eq!(eval("exists(f.missing)"), 0.0);
    assert_eq!(eval_with("exists(equip(weapon))", &[("equip(weapon)", 1.0)]), 1.0, "the fixed exists(equip(…))");
    let (message, _) = error_of("exists(1 + 2)");
    assert!(message.contains("takes a lookup"), "{message}");
}

#[test]
fn lookups_parse_into_their_scopes_with_the_spec_bugs_fixed() {
    let lookup = |text: &str| match parse(text).unwrap().kind {
        AstKind::Lookup(lookup) => lookup,
        other => panic!("{text}: {other:?}"),
    };
    let scope = |text: &str| lookup(text).scope;
    assert_eq!(scope("PA"), Scope::Auto);
    assert_eq!(lookup("arg.angle.xy").name, "arg.angle.xy");
    assert_eq!(scope("f.bonus"), Scope::Formula);
    assert_eq!(scope("c.PA"), Scope::Actor);
    assert_eq!(scope("t.PA"), Scope::Target);
    assert_eq!(scope("t.isNull"), Scope::TargetIsNull);
    assert_eq!(scope("t.isNotNull"), Scope::TargetIsNotNull);
    assert_eq!(scope("skill.range"), Scope::Skill);
    assert_eq!(scope("c.skill.range"), Scope::Skill, "c. before skill. is ignored");
    assert_eq!(scope("mount.speed"), Scope::ActorMount);
    assert_eq!(scope("c.mounter.speed"), Scope::ActorMounter);
    assert_eq!(scope("t.mount.speed"), Scope::TargetMount, "the target's mount (the reference read the actor's)");
    assert_eq!(scope("t.mounter.speed"), Scope::TargetMounter);
    assert_eq!(scope("t.status.Poisoned"), Scope::TargetStatus);
    assert_eq!(scope("item.weight"), Scope::Item);
    assert_eq!(scope("skill.item.weight"), Scope::Item);
    assert_eq!(scope("reacted-skill.power"), Scope::ReactedSkill);
    assert_eq!(scope("reacted-skill.item.weight"), Scope::ReactedItem);
    assert_eq!(scope("effect"), Scope::EffectValue);
    assert_eq!(
        scope("reacted-skill.effect"),
        Scope::ReactedEffectValue,
        "the reacted effect (the reference gave the current one)"
    );
    assert_eq!(lookup("(c.x).y"), Lookup { scope: Scope::Actor, name: "x.y".to_owned() });
    assert_eq!(
        scope("t.equip(weapon, blade in hand get max).power"),
        Scope::Equip(Box::new(EquipSearch {
            holder: Some(Holder::Target),
            categories: vec!["weapon".into(), "blade".into()],
            slots: vec!["hand".into()],
            merge: Merge::Max,
        }))
    );
    assert_eq!(
        scope("effect(increase in hp by fire get sum)"),
        Scope::Effect(Box::new(EffectSearch {
            reacted: false,
            changes: vec![Change::Increase],
            stats: vec!["hp".into()],
            categories: vec!["fire".into()],
            merge: Merge::Sum,
        }))
    );
    // `-c.PA` is the negated lookup (the reference refused it).
    assert_eq!(eval_with("-c.PA", &[("c.PA", 4.0)]), -4.0);
    assert_eq!(eval_with("- c . PA", &[("c.PA", 4.0)]), -4.0, "whitespace around `.` is free");
}

#[test]
fn errors_have_a_message_and_a_caret_under_the_offending_character() {
    for (text, message, column) in [
        ("1 +", "ends too early", 3),
        ("if a: b; c; d", "unexpected `;`", 10),
        ("if a: b; e; d", "unexpected `;`", 10),
        ("if x: 1", "needs an else part", 7),
        ("max(a<b, 1)", "put comparisons", 5),
        ("c.max", "`max` is a keyword", 2),
        ("c.first", "`first` is a keyword", 2),
        ("a = b", "`==`", 2),
        ("!a", "not x", 0),
        ("1.5.2", "not a number", 0),
        ("(1 + 2", "to close `(`", 6),
        ("abs(1, 2)", "takes 1 arguments", 0),
        ("clamp()", "takes 1 to 3", 0),
        ("c.isNull", "only applies to the target", 2),
        ("c.item.x", "item lookups belong to skills", 2),
        ("effect(in c)", "keyword", 10),
        ("cond { 1: 2: 3 }", "expected `;`", 11),
        ("cond { default: 1; default: 2 }", "two `default`", 19),
        ("targeted-side { front: 1; front: 2 }", "appears twice", 26),
        ("targeted-side { up: 1 }", "expected a side", 16),
        ("random{}", "expected a value", 7),
        ("1 2", "unexpected number", 2),
        ("max(1,2).x", "`.` can only follow a lookup", 8),
        ("equip(weapon)", "needs the parameter", 0),
        ("x @ y", "cannot be used", 2),
        ("get", "keyword", 0),
    ] {
        let (found, at) = error_of(text);
        assert!(found.contains(message), "{text}: {found}");
        assert_eq!(at, column, "{text}: {found}");
    }
    let error = parse("1 + (2 *").unwrap_err();
    assert_eq!(error.render("1 + (2 *"), "the formula ends too early: expected a value\n  1 + (2 *\n          ^");
}

#[test]
fn canonical_forms() {
    for (text, expected) in [
        ("1+1", "1 + 1"),
        ("a-(b-d)", "a - (b - d)"),
        ("(a-b)-d", "a - b - d"),
        ("a/(b*d)", "a / (b * d)"),
        ("2^3^2", "2 ^ 3 ^ 2"),
        ("(2^3)^2", "(2 ^ 3) ^ 2"),
        ("-2^2", "-2 ^ 2"),
        ("-(2^2)", "-(2 ^ 2)"),
        ("--1", "--1"),
        ("not a==b", "not a == b"),
        ("(not a)==b", "(not a) == b"),
        ("a or (b and d)", "a or (b and d)"),
        ("a<b<d", "a < b < d"),
        ("a<(b<d)", "a < (b < d)"),
        ("1+if x:2;3*4", "1 + (if x: 2; 3 * 4)"),
        ("(if x:2;3)+1", "(if x: 2; 3) + 1"),
        ("max( (a<b) ,1)", "max((a < b), 1)"),
        ("random( )", "random()"),
        ("cond{a:1;default:2}", "cond { a: 1; default: 2 }"),
        ("switch(x){1:2;default:3}", "switch (x) { 1: 2; default: 3 }"),
        ("random{0.5:1;default:2}", "random { 0.5: 1; default: 2 }"),
        ("targeted-side{default:5;front:1}", "targeted-side { front: 1; default: 5 }"),
        ("c . PA", "c.PA"),
        ("(c.x).y", "c.x.y"),
        ("c.skill.range", "skill.range"),
        ("exists( t.status.Poisoned )", "exists(t.status.Poisoned)"),
        ("lookup(x,1+2)", "lookup(x, 1 + 2)"),
        ("equip(a,b in hand,belt get 2).p", "equip(a, b in hand, belt get 2).p"),
        ("equip(get max).p", "equip(get max).p"),
        ("c.equip.p", "equip.p"),
        ("t.mount.equip(x).p", "t.mount.equip(x).p"),
        ("effect()", "effect()"),
        ("reacted-skill.effect(any, decrease in hp)", "reacted-skill.effect(any, decrease in hp)"),
        ("0.10", "0.1"),
        ("5.", "5"),
        ("true", "true"),
    ] {
        assert_eq!(canon(text), expected, "{text}");
        assert_eq!(canon(expected), expected, "canonical forms are fixed points: {expected}");
    }
}

#[test]
fn named_formulas_reference_each_other_and_cycles_are_reported_with_their_path() {
    let named =
        |pairs: &[(&str, &str)]| pairs.iter().map(|(n, t)| ((*n).to_owned(), (*t).to_owned())).collect::<Vec<_>>();
    let (set, errors) = FormulaSet::build(&named(&[("base", "3"), ("double", "f.base * 2")]), &AnyNames);
    assert!(errors.is_empty());
    let mut env = ValuesEnv::new(&set, &BTreeMap::new(), 1);
    assert_eq!(set.eval_named("double", &mut env), 6.0);

    let (set, errors) =
        FormulaSet::build(&named(&[("a", "f.b + 1"), ("b", "f.e"), ("e", "2 * f.a"), ("d", "f.a")]), &AnyNames);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].error.message, "named formulas refer to each other in a cycle: f.a → f.b → f.e → f.a");
    assert_eq!(errors[0].name, "e");
    assert_eq!(errors[0].error.span, Span::new(4, 7), "the caret is under the reference that closes the cycle");
    let mut env = ValuesEnv::new(&set, &BTreeMap::new(), 1);
    assert!(set.eval_named("d", &mut env).is_nan(), "formulas in a cycle evaluate to NaN and never hang");

    let (_, errors) = FormulaSet::build(&named(&[("self_ref", "f.self_ref")]), &AnyNames);
    assert!(errors[0].error.message.contains("f.self_ref → f.self_ref"));
    let (_, errors) = FormulaSet::build(&named(&[("x", "f.nothing")]), &AnyNames);
    assert!(errors[0].error.message.contains("there is no named formula `nothing`"));
}

#[test]
fn unknown_names_are_compile_errors_when_the_project_knows_its_names() {
    let mut project = Project::new("p");
    project.stats.insert(Stat { id: Id::new("gdp"), value: StatValue::Stored(100.into()), ..Stat::default() });
    project.units.insert(Unit {
        id: Id::new("knight"),
        stats: [("hp".to_owned(), 10.into())].into(),
        ..Unit::default()
    });
    project.formulas.insert(Formula { id: Id::new("tax"), expr: "gdp * 0.1".into(), ..Formula::default() });
    let names = ProjectNames::new(&project);
    let mut set = FormulaSet::new();
    for known in ["gdp + 1", "stat.gdp", "c.hp - t.hp", "c.position.x", "turn", "lookup(unknown, 1)", "exists(c.mp)"] {
        assert!(set.compile(known, &names).is_ok(), "{known}");
    }
    for (unknown, hint) in [
        ("gdpp", "write a stat"),
        ("stat.gnp", "there is no stat `gnp` (the project has: gdp)"),
        ("c.mp", "no unit has the stat `mp` (units have: hp)"),
        ("table.card.kitten", "there is no card `kitten`"),
        ("arg.nonsense", "skill arguments are"),
    ] {
        let error = set.compile(unknown, &names).unwrap_err();
        assert!(error.message.contains(hint), "{unknown}: {}", error.message);
    }
    assert!(matches!(names.check(&Lookup { scope: Scope::Item, name: "w".into() }), NameCheck::Unchecked));
    // `eval` with the project reads its stats and formulas.
    let value = evaluate("f.tax + gdp", &Query { project: Some(&project), ..Query::default() }).unwrap();
    assert_eq!(value, 110.0);
    assert!(matches!(
        evaluate("f.tax + c.hp", &Query { project: Some(&project), ..Query::default() }),
        Err(QueryError::Formula { .. })
    ));
}

#[test]
fn evaluation_reads_slots_through_the_environment_without_hashing() {
    struct Counting {
        values: Vec<f64>,
        reads: usize,
    }
    impl Env for Counting {
        fn value(&mut self, slot: LookupSlot) -> f64 {
            self.reads += 1;
            self.values[slot.0 as usize]
        }
        fn has(&mut self, _slot: LookupSlot) -> bool {
            true
        }
        fn random_bits(&mut self) -> u64 {
            0
        }
    }
    let mut set = FormulaSet::new();
    let compiled = set
        .compile("max(0, (c.atk * 1.5 - t.def) * (if c.lvl > t.lvl: 1.2; 1.0)) + floor(c.luck / 10)", &AnyNames)
        .unwrap();
    let order: Vec<String> = set.lookups().map(actforge_runtime::formula::lookup_text).collect();
    assert_eq!(order, vec!["c.atk", "t.def", "c.lvl", "t.lvl", "c.luck"]);
    let mut env = Counting { values: vec![10.0, 4.0, 3.0, 2.0, 25.0], reads: 0 };
    assert!((set.eval(&compiled, &mut env) - ((15.0 - 4.0) * 1.2 + 2.0)).abs() < 1e-12);
    assert_eq!(env.reads, 5);
    assert_eq!(set.compile("2 * (3 + 4) - max(1, 2)", &AnyNames).unwrap().constant(), Some(12.0), "constants fold");
}

/// An environment that answers every slot, counts its reads, keeps its draws and reports,
/// and says whether its reads only read (`and`/`or` may then leave out a side that only reads).
struct Recording {
    only_read: bool,
    reads: usize,
    draws: u64,
    issues: Vec<Issue>,
}

impl Recording {
    fn new(only_read: bool) -> Self {
        Self { only_read, reads: 0, draws: 7, issues: Vec::new() }
    }
}

impl Env for Recording {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        self.reads += 1;
        f64::from(slot.0 % 3)
    }
    fn has(&mut self, slot: LookupSlot) -> bool {
        self.reads += 1;
        slot.0.is_multiple_of(2)
    }
    fn random_bits(&mut self) -> u64 {
        self.draws = self.draws.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        self.draws
    }
    fn facing(&mut self, _targeted: bool) -> Option<Side> {
        None
    }
    fn issue(&mut self, issue: Issue) {
        self.issues.push(issue);
    }
    fn reads_only_read(&self) -> bool {
        self.only_read
    }
}

#[test]
fn and_or_leave_out_a_side_that_only_reads_where_the_other_decides_and_nothing_else() {
    // Slots in reading order: c.zero reads 0, c.one 1 (see `Recording::value`).
    let run = |text: &str, only_read: bool| {
        let mut set = FormulaSet::new();
        set.compile("c.zero + c.one", &AnyNames).unwrap();
        let compiled = set.compile(text, &AnyNames).unwrap();
        let mut env = Recording::new(only_read);
        let value = set.eval(&compiled, &mut env);
        (value, env.reads, env.draws, env.issues)
    };
    // The left side decides: the right side is not read where reads only read.
    assert_eq!(run("c.zero > 0 and (c.one > 0 or c.zero > 0)", true), (0.0, 1, 7, vec![]));
    assert_eq!(run("c.zero > 0 and (c.one > 0 or c.zero > 0)", false), (0.0, 3, 7, vec![]));
    assert_eq!(run("c.one > 0 or c.zero + c.one > 5", true), (1.0, 1, 7, vec![]));
    assert_eq!(run("c.one > 0 or c.zero + c.one > 5", false), (1.0, 3, 7, vec![]));
    // The left side does not decide: both are read.
    assert_eq!(run("c.one > 0 and c.zero + c.one > 0", true), (1.0, 3, 7, vec![]));
    // A right side that draws or may report is always evaluated.
    let drawn = run("c.zero > 0 and random(1) > 2", true);
    assert_eq!((drawn.0, drawn.1), (0.0, 1));
    assert_ne!(drawn.2, 7, "the draw was made");
    assert_eq!(run("c.zero > 0 and cond { c.one > 5: 1 }", true), (0.0, 2, 7, vec![Issue::NoCondCase]));

    // Named formulas on the right: one that only reads is left out, one that calls a formula
    // that draws is not.
    let named = |name: &str, text: &str| (name.to_owned(), text.to_owned());
    let (mut set, errors) = FormulaSet::build(
        &[named("reads", "c.zero + c.one > 0"), named("inner", "random(1)"), named("draws", "f.inner + c.one")],
        &AnyNames,
    );
    assert!(errors.is_empty(), "{errors:?}");
    let mut run = |text: &str| {
        let compiled = set.compile(text, &AnyNames).unwrap();
        let mut env = Recording::new(true);
        let value = set.eval(&compiled, &mut env);
        (value, env.reads, env.draws != 7, set.reads(&compiled).map(|slots| slots.len()))
    };
    assert_eq!(run("c.zero > 0 and f.reads"), (0.0, 1, false, Some(3)));
    assert_eq!(run("c.zero > 0 and f.draws"), (0.0, 2, true, None));
    assert_eq!(run("c.one > 0 or f.draws"), (1.0, 2, true, None));
}

// ---------------------------------------------------------------------------------------
// Property tests.

fn name() -> impl Strategy<Value = String> + Clone {
    prop::sample::select(vec!["a", "hp", "PA", "speed_2", "x"]).prop_map(str::to_owned)
}

fn dotted() -> impl Strategy<Value = String> {
    prop::collection::vec(name(), 1..3).prop_map(|parts| parts.join("."))
}

fn lookup() -> impl Strategy<Value = Lookup> {
    let merge = prop_oneof![Just(Merge::First), Just(Merge::Max), Just(Merge::Sum), (1u32..4).prop_map(Merge::Nth)];
    prop_oneof![
        dotted().prop_map(|name| Lookup { scope: Scope::Auto, name }),
        dotted().prop_map(|name| Lookup { scope: Scope::Formula, name }),
        name().prop_map(|name| Lookup { scope: Scope::Actor, name }),
        name().prop_map(|name| Lookup { scope: Scope::Target, name }),
        name().prop_map(|name| Lookup { scope: Scope::Skill, name }),
        name().prop_map(|name| Lookup { scope: Scope::TargetMount, name }),
        Just(Lookup { scope: Scope::TargetIsNull, name: String::new() }),
        Just(Lookup { scope: Scope::EffectValue, name: String::new() }),
        (prop::collection::vec(name(), 0..3), prop::collection::vec(name(), 0..2), merge.clone(), name()).prop_map(
            |(categories, slots, merge, name)| Lookup {
                scope: Scope::Equip(Box::new(EquipSearch { holder: Some(Holder::Actor), categories, slots, merge })),
                name,
            }
        ),
        (prop::collection::vec(name(), 0..2), merge).prop_map(|(stats, merge)| Lookup {
            scope: Scope::Effect(Box::new(EffectSearch {
                changes: vec![Change::Decrease],
                stats,
                merge,
                ..EffectSearch::default()
            })),
            name: String::new(),
        }),
    ]
}

fn node(kind: AstKind) -> Ast {
    Ast::new(kind, Span::default())
}

fn ast() -> impl Strategy<Value = Ast> {
    let leaf = prop_oneof![
        (0u32..1000, 0u32..4).prop_map(|(n, scale)| node(AstKind::Number(f64::from(n) / f64::from(10u32.pow(scale))))),
        any::<bool>().prop_map(|b| node(AstKind::Bool(b))),
        lookup().prop_map(|lookup| node(AstKind::Lookup(lookup))),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        let op = prop::sample::select(vec![
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::IntDiv,
            BinaryOp::Rem,
            BinaryOp::Pow,
            BinaryOp::Eq,
            BinaryOp::Lt,
            BinaryOp::Ge,
            BinaryOp::And,
            BinaryOp::Or,
        ]);
        let case = (inner.clone(), inner.clone());
        prop_oneof![
            inner.clone().prop_map(|x| node(AstKind::Neg(Box::new(x)))),
            inner.clone().prop_map(|x| node(AstKind::Not(Box::new(x)))),
            (op, inner.clone(), inner.clone()).prop_map(|(op, a, b)| node(AstKind::Binary(op, Box::new([a, b])))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, a, b)| node(AstKind::If(Box::new([c, a, b])))),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|args| node(AstKind::Call(Builtin::Max, args))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| node(AstKind::Call(Builtin::Clamp, vec![a, b]))),
            Just(node(AstKind::Call(Builtin::Random, vec![]))),
            lookup().prop_map(|lookup| node(AstKind::Exists(lookup))),
            (lookup(), inner.clone()).prop_map(|(lookup, d)| node(AstKind::LookupOr(lookup, Box::new(d)))),
            (prop::collection::vec(case.clone(), 1..3), prop::option::of(inner.clone()))
                .prop_map(|(cases, d)| node(AstKind::Cond(cases, d.map(Box::new)))),
            (inner.clone(), prop::collection::vec(case.clone(), 1..3), prop::option::of(inner.clone()))
                .prop_map(|(s, cases, d)| node(AstKind::Switch(Box::new(s), cases, d.map(Box::new)))),
            (prop::collection::vec(case, 1..3), prop::option::of(inner.clone()))
                .prop_map(|(cases, d)| node(AstKind::RandomBranch(cases, d.map(Box::new)))),
            (any::<bool>(), prop::sample::subsequence(Side::ALL.to_vec(), 1..4), inner.clone()).prop_map(
                |(targeted, sides, value)| node(AstKind::Facing {
                    targeted,
                    cases: sides.into_iter().map(|side| (side, value.clone())).collect(),
                })
            ),
        ]
    })
}

/// A recording environment that answers every slot, for the never-panics tests.
struct Anything(u64);

impl Env for Anything {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        f64::from(slot.0) - 1.5
    }
    fn has(&mut self, slot: LookupSlot) -> bool {
        slot.0.is_multiple_of(2)
    }
    fn random_bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        self.0
    }
    fn facing(&mut self, _targeted: bool) -> Option<Side> {
        Some(Side::Left)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn printing_then_parsing_gives_the_same_tree(tree in ast()) {
        let text = canonical(&tree);
        let parsed = parse(&text).map_err(|error| TestCaseError::fail(error.render(&text)))?;
        prop_assert_eq!(&parsed, &tree, "{}", text);
        prop_assert_eq!(canonical(&parsed), text);
    }

    #[test]
    fn any_text_parses_or_errors_without_panicking(text in "\\PC{0,80}") {
        if let Ok(tree) = parse(&text) {
            let again = canonical(&tree);
            prop_assert_eq!(parse(&again).ok(), Some(tree));
            let mut set = FormulaSet::new();
            if let Ok(compiled) = set.compile(&text, &AnyNames) {
                let _ = set.eval(&compiled, &mut Anything(1));
            }
        } else if let Err(error) = parse(&text) {
            let _ = error.render(&text);
            prop_assert!(error.span.start <= text.len());
        }
    }

    #[test]
    fn leaving_out_sides_that_only_read_changes_no_value_draw_or_report(left in ast(), right in ast()) {
        // Each tree alone and joined both ways by `and` and by `or`, so every run has some.
        let join = |op: BinaryOp, a: &Ast, b: &Ast| node(AstKind::Binary(op, Box::new([a.clone(), b.clone()])));
        let trees = [
            join(BinaryOp::And, &left, &right),
            join(BinaryOp::Or, &left, &right),
            join(BinaryOp::And, &right, &left),
            join(BinaryOp::Or, &right, &left),
            left,
            right,
        ];
        for tree in &trees {
            let text = canonical(tree);
            let mut set = FormulaSet::new();
            if let Ok(compiled) = set.compile(&text, &AnyNames) {
                let (mut short, mut full) = (Recording::new(true), Recording::new(false));
                let (a, b) = (set.eval(&compiled, &mut short), set.eval(&compiled, &mut full));
                prop_assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{}: {} vs {}", text, a, b);
                prop_assert_eq!(short.draws, full.draws, "{}", text);
                prop_assert_eq!(&short.issues, &full.issues, "{}", text);
                prop_assert!(short.reads <= full.reads, "{}", text);
                // One-off evaluation (leaves worked out without a program) is the program's.
                let mut built = Recording::new(false);
                let c = set.program::<Recording>(&compiled).eval(&mut built);
                prop_assert!(c.to_bits() == b.to_bits() || (c.is_nan() && b.is_nan()), "{}: {} vs {}", text, c, b);
                prop_assert_eq!((built.reads, built.draws, &built.issues), (full.reads, full.draws, &full.issues), "{}", text);
            }
        }
    }

    #[test]
    fn formula_like_text_never_panics(text in "[-+*/^%<>=!(),:;{}. 0-9a-z_]{0,60}") {
        let mut set = FormulaSet::new();
        match set.compile(&text, &AnyNames) {
            Ok(compiled) => { let _ = set.eval(&compiled, &mut Anything(3)); }
            Err(error) => { let _ = error.render(&text); }
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    assert!(parse(&deep).unwrap_err().message.contains("nests more than"));
    let negations = format!("{}1", "-".repeat(5000));
    assert!(parse(&negations).is_err());
    let names = Names::check(&AnyNames, &Lookup { scope: Scope::Auto, name: "x".into() });
    assert_eq!(names, NameCheck::Unchecked);
}

/// Issue 27.1: a flat chain of operators builds a tree as tall as the chain; the longest
/// allowed chain parses, folds, prints and evaluates on a 2 MiB thread stack (what spawned
/// threads get), and a longer one is an error that says why instead of a stack overflow.
#[test]
fn a_flat_chain_of_operators_is_bounded_and_never_overflows_the_stack() {
    use actforge_runtime::formula::parser::MAX_OPERATORS;
    let chain = |operators: usize, op: &str| format!("1{}", format!(" {op} 1").repeat(operators));
    // Chains of lookups fold nothing: the compiled closures are as deep as the chain.
    for op in ["*", "+", "and", "<", "-"] {
        let text = format!("a{}", format!(" {op} a").repeat(MAX_OPERATORS));
        let value = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || eval_with(&text, &[("a", 1.0)]))
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("a chain of {MAX_OPERATORS} `{op}` on lookups"));
        assert!(value.is_finite(), "{op}: {value}");
    }
    let longest = chain(MAX_OPERATORS, "+");
    let worker = std::thread::Builder::new().stack_size(2 << 20);
    let (value, printed) = worker
        .spawn(move || {
            let printed = canonical_text(&longest).unwrap();
            (eval(&longest), printed)
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(value, (MAX_OPERATORS + 1) as f64);
    assert_eq!(printed.matches('+').count(), MAX_OPERATORS);
    for (operators, op) in [(MAX_OPERATORS + 1, "+"), (7_350, "+"), (100_000, "*"), (50_000, "and")] {
        let (message, _) = error_of(&chain(operators, op));
        assert!(message.contains("the formula is too long"), "{operators} × {op}: {message}");
    }
}

/// Issue 27 (found by `tests/fuzz.rs`): tracing a long chain walks `MAX_TRACE_DEPTH` levels and
/// then compiles the rest of the chain on the same stack; both fit a 2 MiB thread (a debug build
/// overflowed it while the trace's frame per level was several kilobytes).
#[test]
fn tracing_the_longest_chain_fits_a_spawned_thread_stack() {
    use actforge_runtime::formula::parser::MAX_OPERATORS;
    use actforge_runtime::formula::query::trace;
    for op in [">", "+", "and"] {
        let text = format!("a{}", format!(" {op} a").repeat(MAX_OPERATORS));
        let worker = std::thread::Builder::new().stack_size(2 << 20);
        let (traced, fast) = worker
            .spawn(move || {
                let query = Query { values: [("a".to_owned(), 2.0)].into(), seed: 1, ..Query::default() };
                (trace(&text, &query).unwrap().value, evaluate(&text, &query).unwrap())
            })
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("tracing a chain of {MAX_OPERATORS} `{op}`"));
        assert_eq!(traced, Some(fast), "{op}");
    }
}

/// Issue 27 (found by `tests/fuzz.rs`): a literal of 310 digits or more rounded to infinity,
/// whose canonical form `inf` read back as a name; it is an error at the literal now.
#[test]
fn a_number_too_large_to_hold_is_an_error_at_the_literal() {
    let text = format!("1 + {}", "9".repeat(400));
    let error = parse(&text).unwrap_err();
    assert!(error.message.contains("too large"), "{}", error.message);
    assert_eq!((error.span.start, error.span.end), (4, text.len()));
    assert!(eval(&"9".repeat(308)) > 9e307, "the largest numbers still parse");
}

/// Issue 27 (found by `tests/fuzz.rs`): a dot after a parenthesised lookup that takes no name
/// (`t.isNull`, `effect`, an effect search) was kept in the tree but dropped by the canonical
/// form; it is an error now, as it is without the parentheses.
#[test]
fn a_dot_after_a_parenthesised_lookup_without_a_name_is_an_error() {
    for text in ["((reacted-skill.effect( get first)).PA)", "(effect).x", "(t.isNull).y", "(effect(any)).z + 1"] {
        let (message, _) = error_of(text);
        assert!(message.contains('.'), "{text}: {message}");
    }
    assert_eq!(canon("(c.x).y"), "c.x.y");
}
